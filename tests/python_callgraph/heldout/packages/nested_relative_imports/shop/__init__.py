from .billing.invoices import create_invoice
