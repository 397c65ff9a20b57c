from app import receivers
from app.models import Order, User

if __name__ == "__main__":
    User("ada@example.org").save()
    order = Order()
    order.save()
    order.delete()
