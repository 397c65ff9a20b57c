from dataclasses import dataclass, field


def normalise_email(email):
    return email.strip().lower()


def require(condition, message):
    if not condition:
        raise ValueError(message)


@dataclass
class Address:
    street: str
    city: str

    def one_line(self):
        return f"{self.street}, {self.city}"


@dataclass
class Customer:
    name: str
    email: str
    addresses: list = field(default_factory=list)
    tags: set = field(default_factory=set)

    def __post_init__(self):
        self.email = normalise_email(self.email)
        require("@" in self.email, "invalid email")

    def add_address(self, street, city):
        address = Address(street, city)
        self.addresses.append(address)
        return address


@dataclass
class VipCustomer(Customer):
    discount: float = 0.1

    def __post_init__(self):
        super().__post_init__()
        require(0 < self.discount < 1, "bad discount")


def onboard():
    ada = Customer("Ada", " ADA@Example.org ")
    ada.add_address("1 Main St", "London").one_line()
    try:
        Customer("Bob", "nope")
    except ValueError:
        pass
    vip = VipCustomer("Cy", "cy@example.org", discount=0.2)
    return vip.add_address("2 High St", "Leeds"), ada.email


if __name__ == "__main__":
    onboard()
