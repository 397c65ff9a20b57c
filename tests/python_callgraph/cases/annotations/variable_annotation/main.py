class PaymentGateway:
    def charge(self, amount):
        return {"charged": amount}

CONTAINER = {"gateway": PaymentGateway()}

def pay(amount):
    gateway: PaymentGateway = CONTAINER["gateway"]
    return gateway.charge(amount)

if __name__ == "__main__":
    pay(10)
