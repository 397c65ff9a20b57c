__all__ = ["copy_file"]

def copy_file(src, dst):
    return (src, dst)

def cleanup(path):
    return "fileops cleanup of " + path
