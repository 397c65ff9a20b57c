def build_cache():
    class LruCache:
        def __init__(self):
            self.data = {}

        def put(self, key, value):
            self.data[key] = value

    cache = LruCache()
    cache.put("a", 1)
    return cache

if __name__ == "__main__":
    build_cache()
