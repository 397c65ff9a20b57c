from caching import memoize


@memoize
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


class Catalog:
    def __init__(self, prices):
        self.prices = prices

    @memoize
    def price_with_tax(self, sku):
        return round(self.prices[sku] * 1.2, 2)


if __name__ == "__main__":
    fib(10)
    fib.cache_clear()
    catalog = Catalog({"mug": 8.0})
    catalog.price_with_tax("mug")
    catalog.price_with_tax("mug")
