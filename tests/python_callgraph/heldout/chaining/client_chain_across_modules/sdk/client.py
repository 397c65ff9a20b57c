from .resources import Collection


class Client:
    def __init__(self, base_url, timeout=10, retries=0):
        self.base_url = base_url
        self.timeout = timeout
        self.retries = retries

    def with_options(self, **changes):
        options = {"timeout": self.timeout, "retries": self.retries, **changes}
        return Client(self.base_url, **options)

    def with_timeout(self, seconds):
        return self.with_options(timeout=seconds)

    def collection(self, name):
        return Collection(self, name)

    def request(self, method, path):
        return f"{method} {self.base_url}/{path} t={self.timeout} r={self.retries}"
