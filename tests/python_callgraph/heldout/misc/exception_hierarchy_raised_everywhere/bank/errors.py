class BankError(Exception):
    code = "bank_error"

    def __init__(self, message, *, account=None):
        super().__init__(message)
        self.account = account

    def to_dict(self):
        return {"code": self.code, "message": str(self), "account": self.account}


class ValidationError(BankError):
    code = "invalid"


class InsufficientFunds(BankError):
    code = "insufficient_funds"

    def __init__(self, account, needed):
        super().__init__(f"needs {needed} more", account=account)
        self.needed = needed


class AccountFrozen(BankError):
    code = "frozen"
