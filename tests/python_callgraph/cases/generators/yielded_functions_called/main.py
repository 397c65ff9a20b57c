def validate_schema(doc):
    return "id" in doc

def validate_size(doc):
    return len(doc) < 10

def validators():
    yield validate_schema
    yield validate_size

def is_valid(doc):
    for check in validators():
        if not check(doc):
            return False
    return True

if __name__ == "__main__":
    is_valid({"id": 1})
