def save(path):
    return "disk:" + path
