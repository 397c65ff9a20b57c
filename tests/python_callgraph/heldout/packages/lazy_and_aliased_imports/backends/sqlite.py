class Engine:
    def __init__(self, path):
        self.path = path

    def execute(self, sql):
        return f"sqlite({self.path}): {sql}"


def connect(path):
    return Engine(path)
