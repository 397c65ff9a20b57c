def parse_line(line):
    return line.split(",")

def read_records(lines):
    for line in lines:
        yield parse_line(line)

def count_records(lines):
    return sum(1 for _ in read_records(lines))

if __name__ == "__main__":
    count_records(["a,b", "c,d"])
