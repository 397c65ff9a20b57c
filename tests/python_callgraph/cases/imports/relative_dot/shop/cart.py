from .pricing import price_of

def add_item(cart, item):
    cart.append((item, price_of(item)))
    return cart
