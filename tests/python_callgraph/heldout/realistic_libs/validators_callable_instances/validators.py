class ValidationError(ValueError):
    def __init__(self, field, message):
        super().__init__(f"{field}: {message}")
        self.field = field


class InstanceOf:
    def __init__(self, kind):
        self.kind = kind

    def __call__(self, field, value):
        if not isinstance(value, self.kind):
            raise ValidationError(field, "expected " + self.kind.__name__)


class InRange:
    def __init__(self, low, high):
        self.low = low
        self.high = high

    def __call__(self, field, value):
        if not self.low <= value <= self.high:
            raise ValidationError(field, "out of range")


def instance_of(kind):
    return InstanceOf(kind)


def in_range(low, high):
    return InRange(low, high)


def and_(*validators):
    def check(field, value):
        for validator in validators:
            validator(field, value)
    return check
