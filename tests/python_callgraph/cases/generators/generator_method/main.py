class Paginator:
    def __init__(self, items, size):
        self.items = items
        self.size = size

    def page(self, number):
        start = number * self.size
        return self.items[start:start + self.size]

    def pages(self):
        number = 0
        while self.page(number):
            yield self.page(number)
            number += 1

def main():
    for page in Paginator(list(range(5)), 2).pages():
        print(page)

if __name__ == "__main__":
    main()
