class StorageError(Exception):
    def __init__(self, key):
        super().__init__(f"cannot read {key}")
        self.key = key

def read_blob(store, key):
    try:
        return store[key]
    except KeyError as exc:
        raise StorageError(key) from exc

if __name__ == "__main__":
    try:
        read_blob({}, "avatar.png")
    except StorageError:
        pass
