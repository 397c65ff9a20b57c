import serializers

ROWS = [{"id": 1, "name": "ada"}]


def export(fmt, **options):
    return serializers.get_serializer(fmt, **options).dumps(ROWS)


if __name__ == "__main__":
    export("json", indent=2)
    export("csv", delimiter=";")
    export("text")
    try:
        export("yaml")
    except LookupError:
        pass
