class Parser:
    def __init__(self, text):
        self.text = text

    def parse(self):
        return self.text.split()


class IniParser(Parser):
    def parse(self):
        return [line.partition("=")[::2] for line in self.text.splitlines() if "=" in line]


def parser_class(filename):
    if filename.endswith(".ini"):
        return IniParser
    return Parser


def strict(parser_cls):
    class StrictParser(parser_cls):
        def parse(self):
            result = super().parse()
            if not result:
                raise ValueError("empty document")
            return result
    return StrictParser
