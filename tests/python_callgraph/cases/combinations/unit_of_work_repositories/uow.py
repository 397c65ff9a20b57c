class AccountRepository:
    def __init__(self):
        self.balances = {"a": 10, "b": 0}

    def withdraw(self, account, amount):
        self.balances[account] -= amount

    def deposit(self, account, amount):
        self.balances[account] += amount

class Ledger:
    def __init__(self):
        self.entries = []

    def append(self, entry):
        self.entries.append(entry)

class UnitOfWork:
    def __init__(self):
        self.accounts = AccountRepository()
        self.ledger = Ledger()

    def commit(self):
        return len(self.ledger.entries)
