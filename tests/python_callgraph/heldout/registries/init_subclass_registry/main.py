class Storage:
    backends = {}

    def __init_subclass__(cls, scheme=None, **kwargs):
        super().__init_subclass__(**kwargs)
        if scheme is not None:
            Storage.backends[scheme] = cls

    def __init__(self, location):
        self.location = location

    @classmethod
    def for_url(cls, url):
        scheme, _, rest = url.partition("://")
        return cls.backends[scheme](rest)

    def read(self, key):
        return self.location + "/" + key


class LocalStorage(Storage, scheme="file"):
    def read(self, key):
        return "local:" + super().read(key)


class S3Storage(Storage, scheme="s3"):
    def __init__(self, location):
        bucket, _, prefix = location.partition("/")
        super().__init__(prefix)
        self.bucket = bucket


class MemoryStorage(Storage, scheme="mem"):
    def read(self, key):
        return None


def load(url, key):
    return Storage.for_url(url).read(key)


if __name__ == "__main__":
    load("file:///tmp", "a.txt")
    load("s3://bucket/data", "b.txt")
    load("mem://", "c")
