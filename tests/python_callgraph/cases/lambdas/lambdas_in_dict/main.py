def add(a, b):
    return a + b

def subtract(a, b):
    return a - b

OPERATIONS = {
    "+": lambda a, b: add(a, b),
    "-": lambda a, b: subtract(a, b),
}

def calculate(op, a, b):
    return OPERATIONS[op](a, b)

if __name__ == "__main__":
    calculate("+", 1, 2)
    calculate("-", 5, 3)
