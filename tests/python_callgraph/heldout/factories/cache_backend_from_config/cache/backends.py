class BaseCache:
    def __init__(self, timeout=300):
        self.timeout = timeout

    def get(self, key, default=None):
        return default

    def set(self, key, value):
        return False

    def get_or_set(self, key, compute):
        value = self.get(key)
        if value is None:
            value = compute()
            self.set(key, value)
        return value


class MemoryCache(BaseCache):
    def __init__(self, max_entries=100, **kwargs):
        super().__init__(**kwargs)
        self.max_entries = max_entries
        self.data = {}

    def get(self, key, default=None):
        return self.data.get(key, default)

    def set(self, key, value):
        self.data[key] = value
        return True


class FileCache(MemoryCache):
    def __init__(self, directory, **kwargs):
        super().__init__(**kwargs)
        self.directory = directory


class NullCache(BaseCache):
    pass
