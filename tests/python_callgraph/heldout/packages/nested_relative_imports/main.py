import shop

if __name__ == "__main__":
    shop.create_invoice("uk", {"mug": 2, "tee": 1}).describe()
