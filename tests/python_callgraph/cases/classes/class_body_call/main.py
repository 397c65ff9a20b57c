def default_columns():
    return ["id", "name"]

class Table:
    columns = default_columns()

    def header(self):
        return ",".join(self.columns)

if __name__ == "__main__":
    Table().header()
