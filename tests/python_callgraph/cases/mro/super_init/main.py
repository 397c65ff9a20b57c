class Entity:
    def __init__(self, entity_id):
        self.entity_id = entity_id

class Account(Entity):
    def __init__(self, entity_id, owner):
        super().__init__(entity_id)
        self.owner = owner

class SavingsAccount(Account):
    pass

def open_accounts():
    return Account(1, "ada"), SavingsAccount(2, "bob")

if __name__ == "__main__":
    open_accounts()
