class DiskStore:
    def write(self, key, data):
        return "disk " + key

class CloudStore:
    def write(self, key, data):
        return "cloud " + key

def backup(store: DiskStore | CloudStore, key):
    return store.write(key, b"")

if __name__ == "__main__":
    backup(DiskStore(), "a")
    backup(CloudStore(), "b")
