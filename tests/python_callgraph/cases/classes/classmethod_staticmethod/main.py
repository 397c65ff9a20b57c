class Config:
    def __init__(self, values):
        self.values = values

    @staticmethod
    def parse_line(line):
        key, _, value = line.partition("=")
        return key.strip(), value.strip()

    @classmethod
    def from_text(cls, text):
        pairs = [cls.parse_line(line) for line in text.splitlines() if line]
        return cls(dict(pairs))

def load():
    Config.parse_line("x = 1")
    return Config.from_text("debug = true")

if __name__ == "__main__":
    load()
