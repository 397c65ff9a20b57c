def require_open(method):
    def guard(self, *args):
        if not self.is_open:
            raise RuntimeError("closed")
        return method(self, *args)
    return guard

class Account:
    def __init__(self):
        self.is_open = True
        self.balance = 0

    @require_open
    def deposit(self, amount):
        self.balance += amount
        return self.balance

if __name__ == "__main__":
    Account().deposit(5)
