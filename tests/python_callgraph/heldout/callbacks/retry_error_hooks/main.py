class TransientError(Exception):
    pass


class FatalError(Exception):
    def __init__(self, attempts):
        super().__init__(f"gave up after {attempts} attempts")
        self.attempts = attempts


def log_error(attempt, error):
    return f"attempt {attempt}: {error}"


def no_backoff(attempt):
    return 0


def exponential_backoff(attempt):
    return 2 ** attempt


def retry(operation, attempts=3, on_error=log_error, backoff=no_backoff):
    for attempt in range(1, attempts + 1):
        try:
            return operation()
        except TransientError as error:
            on_error(attempt, error)
            backoff(attempt)
    raise FatalError(attempts)


class FlakyService:
    def __init__(self, failures):
        self.failures = failures
        self.errors = []

    def call(self):
        if self.failures:
            self.failures -= 1
            raise TransientError("busy")
        return "ok"

    def record(self, attempt, error):
        self.errors.append(attempt)


def main():
    service = FlakyService(failures=2)
    retry(service.call)
    other = FlakyService(failures=5)
    try:
        retry(other.call, on_error=other.record, backoff=exponential_backoff)
    except FatalError as error:
        return error.attempts


if __name__ == "__main__":
    main()
