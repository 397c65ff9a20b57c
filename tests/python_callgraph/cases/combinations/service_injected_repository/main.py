from app.db import Connection
from app.repository import CustomerRepository
from app.service import CustomerService

def main():
    conn = Connection("sqlite://")
    service = CustomerService(CustomerRepository(conn))
    return service.rename(1, "Ada")

if __name__ == "__main__":
    main()
