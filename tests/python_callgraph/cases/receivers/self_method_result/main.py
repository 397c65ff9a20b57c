class Step:
    def __init__(self, name):
        self.name = name

    def advance(self):
        return self.name + " done"

class Workflow:
    def __init__(self):
        self.steps = [Step("draft"), Step("review")]

    def current(self):
        return self.steps[0]

    def proceed(self):
        return self.current().advance()

if __name__ == "__main__":
    Workflow().proceed()
