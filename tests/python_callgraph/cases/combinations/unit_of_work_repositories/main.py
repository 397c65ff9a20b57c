from uow import UnitOfWork

def transfer(uow: UnitOfWork, source, target, amount):
    uow.accounts.withdraw(source, amount)
    uow.accounts.deposit(target, amount)
    uow.ledger.append(f"{source}->{target}:{amount}")
    uow.commit()

if __name__ == "__main__":
    transfer(UnitOfWork(), "a", "b", 5)
