class SpamFilter:
    def check(self, message):
        return "spam" not in message

class LengthFilter:
    def __init__(self):
        self.limit = 100

    def check(self, message):
        return len(message) <= self.limit

def accept(message):
    filters = [cls() for cls in (SpamFilter, LengthFilter)]
    return all(f.check(message) for f in filters)

if __name__ == "__main__":
    accept("hello")
