import json


def _encode(value):
    if hasattr(value, "to_dict"):
        return value.to_dict()
    return value


class DictMixin:
    def fields(self):
        return [name for name in vars(self) if not name.startswith("_")]

    def to_dict(self):
        return {name: _encode(getattr(self, name)) for name in self.fields()}


class JsonMixin:
    def to_json(self):
        return json.dumps(self.to_dict(), sort_keys=True)


class ReprMixin:
    def __repr__(self):
        return f"{type(self).__name__}({self.to_dict()!r})"
