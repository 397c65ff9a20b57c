from .core import Logger, LogRecord
from .handlers import Formatter, Handler, ListHandler, StreamHandler

_loggers = {}


def get_logger(name):
    if name not in _loggers:
        _loggers[name] = Logger(name)
    return _loggers[name]
