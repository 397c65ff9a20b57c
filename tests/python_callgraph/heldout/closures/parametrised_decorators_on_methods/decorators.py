import functools


class TooManyAttempts(Exception):
    pass


def retry(times=3, exceptions=(Exception,)):
    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            for _ in range(times):
                try:
                    return fn(*args, **kwargs)
                except exceptions:
                    continue
            raise TooManyAttempts(fn.__name__)
        return wrapper
    return decorator


def requires(permission):
    def decorator(fn):
        def wrapper(self, user, *args):
            if permission not in user.get("permissions", ()):
                return deny(user, permission)
            return fn(self, user, *args)
        return wrapper
    return decorator


def deny(user, permission):
    return f"{user.get('name')} lacks {permission}"
