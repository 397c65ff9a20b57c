class SqlRepository:
    def __init__(self, dsn):
        self.dsn = dsn

    def save(self, entity):
        return (self.dsn, entity)

def make_repository():
    return SqlRepository("sqlite://")

def persist(entity):
    repo = make_repository()
    return repo.save(entity)

if __name__ == "__main__":
    persist({"id": 1})
