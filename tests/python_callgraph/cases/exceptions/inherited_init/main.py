class AppError(Exception):
    def __init__(self, message, code=500):
        super().__init__(message)
        self.code = code

class NotFoundError(AppError):
    pass

def find_invoice(invoices, number):
    if number not in invoices:
        raise NotFoundError(f"invoice {number}", 404)
    return invoices[number]

if __name__ == "__main__":
    try:
        find_invoice({}, 7)
    except AppError:
        pass
