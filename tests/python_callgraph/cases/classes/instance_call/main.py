class RateLimiter:
    def __init__(self, limit):
        self.limit = limit
        self.count = 0

    def __call__(self, request):
        self.count += 1
        return self.count <= self.limit

def handle(request):
    allow = RateLimiter(2)
    return allow(request)

if __name__ == "__main__":
    handle("GET /")
