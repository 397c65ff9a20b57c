class PermissionDenied(Exception):
    pass

def delete_file(user, path):
    if user != "admin":
        raise PermissionDenied
    return path

if __name__ == "__main__":
    try:
        delete_file("guest", "/tmp/x")
    except PermissionDenied:
        pass
