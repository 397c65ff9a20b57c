class FileCache:
    def get(self, key):
        return None

class RedisCache:
    def __init__(self):
        self.url = "redis://"

    def get(self, key):
        return "cached"

def cache_class(use_redis):
    if use_redis:
        return RedisCache
    return FileCache

def lookup(key, use_redis):
    cache = cache_class(use_redis)()
    return cache.get(key)

if __name__ == "__main__":
    lookup("k", True)
    lookup("k", False)
