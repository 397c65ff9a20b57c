from parsers import parser_class, strict


def load(filename, text, must_have_content=False):
    cls = parser_class(filename)
    if must_have_content:
        cls = strict(cls)
    return cls(text).parse()


if __name__ == "__main__":
    load("settings.ini", "a=1\nb=2")
    load("notes.txt", "hello world")
    load("settings.ini", "x=1", must_have_content=True)
    try:
        load("empty.txt", "", must_have_content=True)
    except ValueError:
        pass
