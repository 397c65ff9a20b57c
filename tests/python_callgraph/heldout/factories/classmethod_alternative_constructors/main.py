import json


class Color:
    def __init__(self, red, green, blue):
        self.rgb = (red, green, blue)

    @classmethod
    def from_hex(cls, text):
        text = text.lstrip("#")
        return cls(*(int(text[i:i + 2], 16) for i in (0, 2, 4)))

    @classmethod
    def from_dict(cls, data):
        return cls(data["r"], data["g"], data["b"])

    @classmethod
    def from_json(cls, text):
        return cls.from_dict(json.loads(text))

    @staticmethod
    def clamp(value):
        return max(0, min(255, value))

    def lighter(self, amount):
        return type(self)(*(Color.clamp(c + amount) for c in self.rgb))


class AlphaColor(Color):
    def __init__(self, red, green, blue, alpha=1.0):
        super().__init__(red, green, blue)
        self.alpha = alpha

    @classmethod
    def from_dict(cls, data):
        color = super().from_dict(data)
        color.alpha = data.get("a", 1.0)
        return color


def palette():
    return [
        Color.from_hex("#ff8800"),
        AlphaColor.from_hex("#000000"),
        Color.from_json('{"r": 1, "g": 2, "b": 3}'),
        AlphaColor.from_json('{"r": 1, "g": 2, "b": 3, "a": 0.5}'),
    ]


if __name__ == "__main__":
    for color in palette():
        color.lighter(10)
