from .repository import CustomerRepository

class CustomerService:
    def __init__(self, repository: CustomerRepository):
        self.repository = repository

    def rename(self, customer_id: int, name: str) -> dict:
        customer = self.repository.get(customer_id)
        customer["name"] = name
        self.repository.save(customer)
        return customer
