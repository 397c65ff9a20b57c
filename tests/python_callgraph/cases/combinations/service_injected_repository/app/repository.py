from .db import Connection

class CustomerRepository:
    def __init__(self, conn: Connection):
        self.conn = conn

    def get(self, customer_id: int) -> dict:
        self.conn.execute("select * from customers where id = ?", customer_id)
        return {"id": customer_id, "name": "?"}

    def save(self, customer: dict) -> None:
        self.conn.execute("update customers set name = ?", customer["name"])
