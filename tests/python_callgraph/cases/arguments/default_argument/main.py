def default_serializer(obj):
    return repr(obj)

def store(key, value, serializer=default_serializer):
    return {key: serializer(value)}

def main():
    store("user", {"id": 1})

if __name__ == "__main__":
    main()
