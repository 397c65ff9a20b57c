class Invoice:
    def __init__(self, lines):
        self.lines = lines

    def subtotal(self):
        return sum(self.lines)

    def tax(self):
        return self.subtotal() * 0.2

    def total(self):
        return self.subtotal() + self.tax()

if __name__ == "__main__":
    Invoice([10, 20]).total()
