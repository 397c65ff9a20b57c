def make_key(name):
    return "docs/" + name

def put(key, value):
    return {key: value}
