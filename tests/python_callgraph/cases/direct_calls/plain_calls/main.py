def read_input():
    return "3 4"

def parse_numbers(text):
    return [int(part) for part in text.split()]

def main():
    numbers = parse_numbers(read_input())
    return sum(numbers)

if __name__ == "__main__":
    main()
