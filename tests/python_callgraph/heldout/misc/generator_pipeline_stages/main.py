LOG = """\
2024-01-01 INFO start
2024-01-01 ERROR disk full
# comment
2024-01-02 ERROR disk full
2024-01-02 WARN slow
"""


def parse_line(line):
    date, level, message = line.split(" ", 2)
    return {"date": date, "level": level, "message": message}


def read_lines(text):
    for line in text.splitlines():
        if line and not line.startswith("#"):
            yield line


def parse(lines):
    for line in lines:
        yield parse_line(line)


def only(level, records):
    return (record for record in records if record["level"] == level)


def dedupe(records, key):
    seen = set()
    for record in records:
        if key(record) not in seen:
            seen.add(key(record))
            yield record


def errors(text):
    stage = read_lines(text)
    stage = parse(stage)
    stage = only("ERROR", stage)
    return list(dedupe(stage, key=lambda record: record["message"]))


if __name__ == "__main__":
    errors(LOG)
