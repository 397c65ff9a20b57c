class PercentOff:
    def __init__(self, percent):
        self.percent = percent

    def apply(self, total):
        return total * (100 - self.percent) / 100

class FixedOff:
    def __init__(self, amount):
        self.amount = amount

    def apply(self, total):
        return max(0, total - self.amount)

STRATEGIES = {"percent": PercentOff, "fixed": FixedOff}

def make_discount(kind, value):
    return STRATEGIES[kind](value)

class Checkout:
    def __init__(self, discount):
        self.discount = discount

    def total(self, prices):
        return self.discount.apply(sum(prices))

def main():
    for kind in ("percent", "fixed"):
        Checkout(make_discount(kind, 10)).total([50, 50])

if __name__ == "__main__":
    main()
