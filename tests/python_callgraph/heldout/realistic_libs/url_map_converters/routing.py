class NotFound(Exception):
    pass


class BaseConverter:
    regex = "[^/]+"

    def to_python(self, value):
        return value


class IntegerConverter(BaseConverter):
    regex = r"\d+"

    def to_python(self, value):
        if not value.isdigit():
            raise NotFound(value)
        return int(value)


class PathConverter(BaseConverter):
    regex = "[^/].*?"


DEFAULT_CONVERTERS = {"default": BaseConverter, "int": IntegerConverter, "path": PathConverter}


class Rule:
    def __init__(self, string, endpoint):
        self.string = string
        self.endpoint = endpoint
        self.parts = []

    def compile(self, converters):
        for piece in self.string.strip("/").split("/"):
            if piece.startswith("<"):
                kind, _, name = piece[1:-1].rpartition(":")
                self.parts.append((name, converters[kind or "default"]()))
            else:
                self.parts.append((piece, None))

    def match(self, path):
        pieces = path.strip("/").split("/")
        if len(pieces) != len(self.parts):
            return None
        values = {}
        for piece, (name, converter) in zip(pieces, self.parts):
            if converter is None:
                if piece != name:
                    return None
            else:
                values[name] = converter.to_python(piece)
        return values


class MapAdapter:
    def __init__(self, url_map, server_name):
        self.map = url_map
        self.server_name = server_name

    def match(self, path):
        for rule in self.map.rules:
            values = rule.match(path)
            if values is not None:
                return rule.endpoint, values
        raise NotFound(path)

    def dispatch(self, views, path):
        endpoint, values = self.match(path)
        return views[endpoint](**values)


class Map:
    def __init__(self, rules):
        self.converters = dict(DEFAULT_CONVERTERS)
        self.rules = []
        for rule in rules:
            self.add(rule)

    def add(self, rule):
        rule.compile(self.converters)
        self.rules.append(rule)

    def bind(self, server_name):
        return MapAdapter(self, server_name)
