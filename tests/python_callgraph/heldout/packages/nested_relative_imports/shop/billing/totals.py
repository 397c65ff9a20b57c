def subtotal(lines):
    return sum(price * quantity for price, quantity in lines)
