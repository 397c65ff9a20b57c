def make_parser(delimiter):
    def parse(text):
        def clean(field):
            return field.strip()
        return [clean(field) for field in text.split(delimiter)]
    return parse

def main():
    parse_csv = make_parser(",")
    return parse_csv(" a, b ")

if __name__ == "__main__":
    main()
