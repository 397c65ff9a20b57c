class Storage:
    def location(self):
        return "default"

class Cached(Storage):
    def hit_rate(self):
        return 0.5

class Remote(Storage):
    def location(self):
        return "remote"

class CachedRemote(Cached, Remote):
    pass

def describe():
    store = CachedRemote()
    return store.location(), store.hit_rate()

if __name__ == "__main__":
    describe()
