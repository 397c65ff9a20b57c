class Widget:
    def __init__(self, label):
        self.label = label

    def render(self):
        return f"<{self.tag}>{self.label}</{self.tag}>"


class HtmlButton(Widget):
    tag = "button"


class HtmlInput(Widget):
    tag = "input"


class TextButton(Widget):
    def render(self):
        return "[ " + self.label + " ]"


class TextInput(Widget):
    def __init__(self, label, width=10):
        super().__init__(label)
        self.width = width

    def render(self):
        return self.label + ": " + "_" * self.width
