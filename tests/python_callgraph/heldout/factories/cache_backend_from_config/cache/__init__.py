from .backends import FileCache, MemoryCache, NullCache

BACKENDS = {
    "memory": MemoryCache,
    "file": FileCache,
    "null": NullCache,
}


def create_cache(config):
    options = dict(config.get("options", {}))
    backend_cls = BACKENDS[config.get("backend", "memory")]
    return backend_cls(**options)
