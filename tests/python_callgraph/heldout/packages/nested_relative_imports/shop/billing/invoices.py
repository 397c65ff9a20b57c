from . import totals
from .. import catalog
from ..config import tax_rate as rate_for


class Invoice:
    def __init__(self, country, lines):
        self.country = country
        self.lines = lines

    def total(self):
        return totals.subtotal(self.lines)

    def describe(self):
        return f"{self.total()} incl. {rate_for(self.country):.0%} tax"


def create_invoice(country, order):
    lines = []
    for sku, quantity in order.items():
        product = catalog.find_product(sku)
        lines.append((product.gross(country), quantity))
    return Invoice(country, lines)
