def build(year):
    return "yearly " + year
