from .errors import AccountFrozen, InsufficientFunds, ValidationError


def check_amount(amount):
    if amount <= 0:
        raise ValidationError("amount must be positive")


class Account:
    def __init__(self, number, balance=0, frozen=False):
        self.number = number
        self.balance = balance
        self.frozen = frozen

    def withdraw(self, amount):
        check_amount(amount)
        if self.frozen:
            raise AccountFrozen("account frozen", account=self.number)
        if amount > self.balance:
            raise InsufficientFunds(self.number, amount - self.balance)
        self.balance -= amount
        return self.balance
