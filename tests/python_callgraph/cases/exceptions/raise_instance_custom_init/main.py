def describe_field(field):
    return f"field '{field}'"

class ValidationError(Exception):
    def __init__(self, field, reason):
        super().__init__(f"{describe_field(field)}: {reason}")
        self.field = field

def validate_age(age):
    if age < 0:
        raise ValidationError("age", "must be positive")
    return age

if __name__ == "__main__":
    try:
        validate_age(-1)
    except ValidationError:
        pass
