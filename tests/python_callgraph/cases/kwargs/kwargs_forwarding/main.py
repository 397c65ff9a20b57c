def compact_json(data):
    return str(data).replace(" ", "")

def write(data, encoder):
    return encoder(data)

def save(data, **options):
    return write(data, **options)

def main():
    save({"a": 1}, encoder=compact_json)

if __name__ == "__main__":
    main()
