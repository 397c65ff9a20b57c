import functools


def memoize(fn):
    cache = {}

    @functools.wraps(fn)
    def wrapper(*args):
        if args not in cache:
            cache[args] = fn(*args)
        return cache[args]

    def cache_clear():
        cache.clear()

    wrapper.cache_clear = cache_clear
    return wrapper
