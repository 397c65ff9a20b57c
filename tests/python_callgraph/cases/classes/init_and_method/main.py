class Repository:
    def __init__(self, name):
        self.name = name
        self.items = []

    def save(self, item):
        self.items.append(item)
        return len(self.items)

def main():
    repo = Repository("orders")
    repo.save({"id": 1})

if __name__ == "__main__":
    main()
