from shop.cart import add_item

if __name__ == "__main__":
    add_item([], "apple")
