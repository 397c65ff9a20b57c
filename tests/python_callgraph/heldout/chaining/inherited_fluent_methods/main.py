class ChartBuilder:
    def __init__(self, title):
        self.title = title
        self.options = {}

    def set(self, key, value):
        self.options[key] = value
        return self

    def size(self, width, height):
        return self.set("width", width).set("height", height)

    def theme(self, name):
        return self.set("theme", name)

    def render(self):
        return f"{self.title} {sorted(self.options.items())}"


class BarChartBuilder(ChartBuilder):
    def stacked(self, flag=True):
        return self.set("stacked", flag)

    def theme(self, name):
        super().theme(name)
        return self.set("palette", name + "-bars")

    def render(self):
        return "bar: " + super().render()


def dashboard():
    line = ChartBuilder("latency").size(400, 200).theme("dark").render()
    bars = BarChartBuilder("errors").theme("light").stacked().size(300, 100).render()
    return line, bars


if __name__ == "__main__":
    dashboard()
