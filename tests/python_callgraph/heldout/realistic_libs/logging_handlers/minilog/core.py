class LogRecord:
    def __init__(self, name, level, message):
        self.name = name
        self.level = level
        self.message = message


class Logger:
    def __init__(self, name, level=10):
        self.name = name
        self.level = level
        self.handlers = []

    def add_handler(self, handler):
        self.handlers.append(handler)

    def make_record(self, level, message):
        return LogRecord(self.name, level, message)

    def _log(self, level, message):
        if level >= self.level:
            self.call_handlers(self.make_record(level, message))

    def call_handlers(self, record):
        for handler in self.handlers:
            handler.handle(record)

    def debug(self, message):
        self._log(10, message)

    def error(self, message):
        self._log(40, message)
