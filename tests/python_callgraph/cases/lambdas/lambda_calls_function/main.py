def to_cents(amount):
    return round(amount * 100)

def total_in_cents(amounts):
    convert = lambda amount: to_cents(amount)
    return sum(convert(a) for a in amounts)

if __name__ == "__main__":
    total_in_cents([1.5, 2.25])
