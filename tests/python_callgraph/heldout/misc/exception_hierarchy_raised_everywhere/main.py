from bank.accounts import Account
from bank.errors import BankError, InsufficientFunds


def api_withdraw(account, amount):
    try:
        return {"balance": account.withdraw(amount)}
    except InsufficientFunds as error:
        body = error.to_dict()
        body["needed"] = error.needed
        return body
    except BankError as error:
        return error.to_dict()


if __name__ == "__main__":
    account = Account("A1", balance=50)
    api_withdraw(account, 20)
    api_withdraw(account, 100)
    api_withdraw(account, -5)
    api_withdraw(Account("A2", frozen=True), 5)
