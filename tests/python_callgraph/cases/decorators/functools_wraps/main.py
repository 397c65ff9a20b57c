import functools

def cached(func):
    store = {}

    @functools.wraps(func)
    def wrapper(key):
        if key not in store:
            store[key] = func(key)
        return store[key]
    return wrapper

@cached
def load_profile(user_id):
    return {"id": user_id}

def main():
    load_profile(1)
    load_profile(1)

if __name__ == "__main__":
    main()
