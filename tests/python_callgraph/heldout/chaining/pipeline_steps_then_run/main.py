from pipeline import Pipeline


def strip(text):
    return text.strip()


def parse_int(text):
    return int(text)


def clamp(value, low, high):
    return max(low, min(high, value))


def report(name, error):
    return f"{name}: {error}"


def build():
    return (
        Pipeline("percent")
        .pipe(strip)
        .pipe(parse_int)
        .pipe(clamp, 0, 100)
        .on_error(report)
    )


if __name__ == "__main__":
    build().run(" 150 ")
    build().run("abc")
    Pipeline("raw").pipe(strip).run("  x ")
