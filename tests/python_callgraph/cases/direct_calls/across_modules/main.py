import billing

def checkout(cart):
    total = billing.compute_total(cart)
    return billing.charge(total)

if __name__ == "__main__":
    checkout([5, 10])
