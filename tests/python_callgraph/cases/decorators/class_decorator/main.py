MODELS = {}

def model(cls):
    MODELS[cls.__name__.lower()] = cls
    return cls

@model
class Customer:
    def __init__(self, name):
        self.name = name

    def display(self):
        return self.name.title()

def main():
    return Customer("ada").display()

if __name__ == "__main__":
    main()
