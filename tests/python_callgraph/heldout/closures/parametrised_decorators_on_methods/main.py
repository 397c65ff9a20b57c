from decorators import TooManyAttempts, requires, retry


class Repository:
    def __init__(self, failures):
        self.failures = failures

    @retry(times=2, exceptions=(ConnectionError,))
    def load(self, key):
        if self.failures:
            self.failures -= 1
            raise ConnectionError(key)
        return {"key": key}

    @requires("admin")
    @retry()
    def purge(self, user):
        return "purged by " + user["name"]


if __name__ == "__main__":
    Repository(1).load("a")
    try:
        Repository(5).load("b")
    except TooManyAttempts:
        pass
    repo = Repository(0)
    repo.purge({"name": "ada", "permissions": ["admin"]})
    repo.purge({"name": "bob"})
