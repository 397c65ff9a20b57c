class Pipeline:
    def __init__(self, name):
        self.name = name
        self.steps = []
        self.error_handler = None

    def pipe(self, step, *args):
        self.steps.append((step, args))
        return self

    def on_error(self, handler):
        self.error_handler = handler
        return self

    def run(self, value):
        for step, args in self.steps:
            try:
                value = step(value, *args)
            except ValueError as error:
                if self.error_handler is None:
                    raise
                return self.error_handler(self.name, error)
        return value
