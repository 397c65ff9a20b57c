from validators import ValidationError, and_, in_range, instance_of


def not_empty(field, value):
    if not value:
        raise ValidationError(field, "empty")


class Field:
    def __init__(self, name, validator=None, converter=None):
        self.name = name
        self.validator = validator
        self.converter = converter

    def clean(self, raw):
        value = self.converter(raw) if self.converter else raw
        if self.validator is not None:
            self.validator(self.name, value)
        return value


SCHEMA = [
    Field("name", validator=and_(instance_of(str), not_empty)),
    Field("age", validator=and_(instance_of(int), in_range(0, 150)), converter=int),
    Field("nickname"),
]


def load(record):
    errors = []
    for field in SCHEMA:
        try:
            field.clean(record[field.name])
        except ValidationError as error:
            errors.append(error.field)
    return errors


if __name__ == "__main__":
    load({"name": "ada", "age": "36", "nickname": None})
    load({"name": "", "age": "200", "nickname": "x"})
    load({"name": 3, "age": "1", "nickname": "y"})
