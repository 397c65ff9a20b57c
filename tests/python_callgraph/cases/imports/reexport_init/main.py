from payments import charge_card, Gateway

def checkout(amount):
    gateway = Gateway("test-key")
    return charge_card(gateway, amount)

if __name__ == "__main__":
    checkout(20)
