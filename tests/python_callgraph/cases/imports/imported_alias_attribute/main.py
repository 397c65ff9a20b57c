from cache import get

def lookup(key):
    return get(key)

if __name__ == "__main__":
    lookup("user:1")
