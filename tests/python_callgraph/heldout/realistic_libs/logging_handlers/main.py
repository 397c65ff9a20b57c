import io

import minilog


class UpperFormatter(minilog.Formatter):
    def format(self, record):
        return super().format(record).upper()


def configure():
    log = minilog.get_logger("app")
    log.add_handler(minilog.StreamHandler(io.StringIO()))
    errors = minilog.ListHandler(level=40)
    errors.set_formatter(UpperFormatter("{message}"))
    log.add_handler(errors)
    return log


if __name__ == "__main__":
    log = configure()
    log.debug("starting")
    minilog.get_logger("app").error("disk full")
