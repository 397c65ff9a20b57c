import itertools

from pool import Pool, PoolExhausted

_ids = itertools.count(1)


class Connection:
    def __init__(self):
        self.id = next(_ids)
        self.queries = []

    def execute(self, sql):
        self.queries.append(sql)
        return len(self.queries)

    def reset(self):
        self.queries.clear()


class ReadOnlyConnection(Connection):
    def execute(self, sql):
        if not sql.startswith("SELECT"):
            raise PermissionError(sql)
        return super().execute(sql)


def make_replica():
    return ReadOnlyConnection()


def main():
    primary = Pool(Connection, size=1)
    replicas = Pool(make_replica)
    conn = primary.acquire()
    conn.execute("INSERT 1")
    primary.release(conn)
    primary.acquire()
    try:
        primary.acquire()
    except PoolExhausted:
        pass
    replica = replicas.acquire()
    return replica.execute("SELECT 1")


if __name__ == "__main__":
    main()
