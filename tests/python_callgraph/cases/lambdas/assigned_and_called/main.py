def apply_discount(prices):
    discount = lambda price: price * 0.9
    return [discount(p) for p in prices]

if __name__ == "__main__":
    apply_discount([10, 20])
