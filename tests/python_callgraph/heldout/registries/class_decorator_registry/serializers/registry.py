_SERIALIZERS = {}


class UnknownFormat(LookupError):
    def __init__(self, name):
        super().__init__(f"unknown format {name!r}; known: {sorted(_SERIALIZERS)}")


def register(name):
    def decorator(cls):
        _SERIALIZERS[name] = cls
        cls.format_name = name
        return cls
    return decorator


def get_serializer(name, **options):
    try:
        cls = _SERIALIZERS[name]
    except KeyError:
        raise UnknownFormat(name) from None
    return cls(**options)
