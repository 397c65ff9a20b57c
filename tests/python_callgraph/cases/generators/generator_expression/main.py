def trim(text):
    return text.strip()

def collapse_spaces(text):
    return " ".join(text.split())

def clean(text):
    steps = (step for step in [trim, collapse_spaces])
    for step in steps:
        text = step(text)
    return text

if __name__ == "__main__":
    clean("  a   b ")
