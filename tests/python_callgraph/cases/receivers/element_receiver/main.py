class Widget:
    def render(self):
        return "<widget>"

class Panel:
    def __init__(self, title):
        self.title = title

    def render(self):
        return "<panel " + self.title + ">"

def render_page():
    widgets = [Widget(), Widget()]
    panels = {"side": Panel("side")}
    return widgets[0].render() + panels["side"].render()

if __name__ == "__main__":
    render_page()
