import sys


class Formatter:
    def __init__(self, fmt="{name}: {message}"):
        self.fmt = fmt

    def format(self, record):
        return self.fmt.format(name=record.name, message=record.message)


class Handler:
    def __init__(self, level=0):
        self.level = level
        self.formatter = Formatter()

    def set_formatter(self, formatter):
        self.formatter = formatter

    def filter(self, record):
        return record.level >= self.level

    def format(self, record):
        return self.formatter.format(record)

    def emit(self, record):
        raise NotImplementedError

    def handle(self, record):
        if self.filter(record):
            self.emit(record)


class StreamHandler(Handler):
    def __init__(self, stream=None, level=0):
        super().__init__(level)
        self.stream = stream or sys.stdout

    def emit(self, record):
        self.stream.write(self.format(record) + "\n")


class ListHandler(Handler):
    def __init__(self, level=0):
        super().__init__(level)
        self.records = []

    def emit(self, record):
        self.records.append(self.format(record))
