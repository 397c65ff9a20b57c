def non_empty(value):
    return bool(value)

class Field:
    validate = staticmethod(lambda value: non_empty(value))

    def __init__(self, name):
        self.name = name

    def clean(self, value):
        if not Field.validate(value):
            raise ValueError(self.name)
        return value

if __name__ == "__main__":
    Field("title").clean("Hello")
