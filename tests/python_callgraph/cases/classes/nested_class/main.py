class Order:
    class Line:
        def __init__(self, sku, qty):
            self.sku = sku
            self.qty = qty

        def weight(self):
            return self.qty * 2

    def __init__(self):
        self.lines = []

    def add(self, sku, qty):
        line = Order.Line(sku, qty)
        self.lines.append(line)
        return line.weight()

if __name__ == "__main__":
    Order().add("apple", 3)
