def fast_path(order):
    return "express " + order

def slow_path(order):
    return "ground " + order

def pick_shipping(priority):
    if priority:
        return fast_path
    return slow_path

def ship(order, priority):
    return pick_shipping(priority)(order)

if __name__ == "__main__":
    ship("o-1", True)
    ship("o-2", False)
