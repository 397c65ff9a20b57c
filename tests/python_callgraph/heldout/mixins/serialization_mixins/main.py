from models.entities import Address, Customer


def export(customers):
    return [customer.to_json() for customer in customers]


if __name__ == "__main__":
    ada = Customer("ada", Address("London"), "secret")
    bob = Customer("bob", Address("Paris"), "hunter2", referrer=ada)
    export([ada, bob])
    repr(ada)
    repr(ada.address)
