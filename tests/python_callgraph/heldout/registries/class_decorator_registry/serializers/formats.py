import json

from .registry import register


class Serializer:
    def __init__(self, **options):
        self.options = options

    def dumps(self, data):
        raise NotImplementedError


@register("json")
class JsonSerializer(Serializer):
    def dumps(self, data):
        return json.dumps(data, indent=self.options.get("indent"))


@register("csv")
class CsvSerializer(Serializer):
    def __init__(self, delimiter=",", **options):
        super().__init__(**options)
        self.delimiter = delimiter

    def dumps(self, data):
        return "\n".join(self.delimiter.join(map(str, row.values())) for row in data)


@register("text")
class TextSerializer(Serializer):
    def dumps(self, data):
        return repr(data)
