_STORE = {"user:1": "ada"}

def memory_get(key):
    return _STORE.get(key)

get = memory_get
