class Engine:
    def __init__(self, dsn, pool_size=5):
        self.dsn = dsn
        self.pool_size = pool_size

    def execute(self, sql):
        return f"pg({self.dsn}): {sql}"


def connect(dsn):
    return Engine(dsn, pool_size=10)
