class OrderRepository:
    def save(self, order):
        return ("saved", order)

class OrderService:
    def __init__(self):
        self.repo = OrderRepository()

    def place(self, order):
        return self.repo.save(order)

if __name__ == "__main__":
    OrderService().place({"sku": "A1"})
