from tracing import traced

@traced
def checkout(cart):
    return sum(cart)

if __name__ == "__main__":
    checkout([1, 2])
