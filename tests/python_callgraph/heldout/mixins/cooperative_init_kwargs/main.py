class Component:
    def __init__(self, **kwargs):
        if kwargs:
            raise TypeError(sorted(kwargs))
        self.started = False


class NamedMixin:
    def __init__(self, *, name="component", **kwargs):
        self.name = name
        super().__init__(**kwargs)


class RetryMixin:
    def __init__(self, *, retries=3, **kwargs):
        self.retries = retries
        super().__init__(**kwargs)

    def attempts(self):
        return range(self.retries + 1)


class TimeoutMixin:
    def __init__(self, *, timeout=1.0, **kwargs):
        self.timeout = timeout
        super().__init__(**kwargs)


class HttpClient(NamedMixin, RetryMixin, TimeoutMixin, Component):
    def __init__(self, base_url, **kwargs):
        super().__init__(**kwargs)
        self.base_url = base_url


class Cache(NamedMixin, Component):
    pass


def build():
    client = HttpClient("https://api", name="api", retries=1)
    cache = Cache(name="local")
    return list(client.attempts()), cache.name


if __name__ == "__main__":
    build()
