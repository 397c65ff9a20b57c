def to_upper(text):
    return text.upper()

def apply_to_lines(lines, transform):
    return [transform(line) for line in lines]

def main():
    return apply_to_lines(["a", "b"], to_upper)

if __name__ == "__main__":
    main()
