from cache import create_cache

SETTINGS = [
    {"backend": "memory", "options": {"max_entries": 10}},
    {"backend": "file", "options": {"directory": "/tmp/cache", "timeout": 60}},
    {"backend": "null"},
]


def expensive():
    return sum(range(10))


def warm(caches):
    return [cache.get_or_set("total", expensive) for cache in caches]


if __name__ == "__main__":
    warm([create_cache(config) for config in SETTINGS])
