class View:
    def __init__(self, path):
        self.path = path

    def render(self, template):
        return f"<{template} at {self.path}>"
