class Metrics:
    def __init__(self):
        self.counters = {}

    def increment(self, name):
        self.counters[name] = self.counters.get(name, 0) + 1

metrics = Metrics()

def handle_request(path):
    metrics.increment("requests")
    return path

if __name__ == "__main__":
    handle_request("/")
