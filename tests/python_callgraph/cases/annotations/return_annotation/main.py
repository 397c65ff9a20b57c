class InvoiceRepository:
    def save(self, invoice):
        return invoice

REGISTRY = {}

def invoice_repository() -> InvoiceRepository:
    return REGISTRY["invoices"]

def bill(invoice):
    return invoice_repository().save(invoice)

if __name__ == "__main__":
    REGISTRY["invoices"] = InvoiceRepository()
    bill({"total": 5})
