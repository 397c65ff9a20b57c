def parse_config(text):
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)

def load():
    reader = parse_config
    loader = reader
    parse = loader
    return parse("debug=1")

if __name__ == "__main__":
    load()
