from .mixins import DictMixin, JsonMixin, ReprMixin


class Address(DictMixin, ReprMixin):
    def __init__(self, city):
        self.city = city


class Customer(JsonMixin, DictMixin, ReprMixin):
    def __init__(self, name, address, password, referrer=None):
        self.name = name
        self.address = address
        self._password = password
        self.referrer = referrer

    def fields(self):
        return ["name", "address", "referrer"]

    def to_dict(self):
        data = super().to_dict()
        data["kind"] = "customer"
        return data
