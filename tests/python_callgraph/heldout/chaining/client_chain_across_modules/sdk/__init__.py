from .client import Client

_default = None


def get_client():
    global _default
    if _default is None:
        _default = Client("https://service")
    return _default
