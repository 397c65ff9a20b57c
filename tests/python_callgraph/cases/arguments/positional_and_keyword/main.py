def strip_spaces(value):
    return value.strip()

def lower_case(value):
    return value.lower()

def clean(value, normalizer):
    return normalizer(value)

def main():
    clean(" A ", strip_spaces)
    clean("B", normalizer=lower_case)

if __name__ == "__main__":
    main()
