def build(month):
    return "monthly " + month
