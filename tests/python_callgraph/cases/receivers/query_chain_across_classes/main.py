class Query:
    def __init__(self, table):
        self.table = table
        self.filters = []

    def where(self, condition):
        self.filters.append(condition)
        return self

    def fetch(self):
        return (self.table, self.filters)

class Database:
    def table(self, name):
        return Query(name)

def active_users(db):
    return db.table("users").where("active").fetch()

if __name__ == "__main__":
    active_users(Database())
