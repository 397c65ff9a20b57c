def save(path):
    return "s3:" + path
