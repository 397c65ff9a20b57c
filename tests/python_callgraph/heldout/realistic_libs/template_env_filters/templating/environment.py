from .filters import DEFAULT_FILTERS


class UndefinedFilter(KeyError):
    pass


class Environment:
    def __init__(self, autoescape=False):
        self.autoescape = autoescape
        self.filters = DEFAULT_FILTERS.copy()

    def call_filter(self, name, value, *args):
        func = self.filters.get(name)
        if func is None:
            raise UndefinedFilter(name)
        return func(value, *args)

    def from_string(self, source):
        return Template(self, source)


class Template:
    def __init__(self, environment, source):
        self.environment = environment
        self.nodes = self.parse(source)

    @staticmethod
    def parse(source):
        nodes = []
        for part in source.split("|"):
            name, _, arg = part.strip().partition(":")
            nodes.append((name, arg))
        return nodes

    def render(self, **context):
        value = context.get(self.nodes[0][0])
        for name, arg in self.nodes[1:]:
            value = self.environment.call_filter(name, value, *([arg] if arg else []))
        return value
