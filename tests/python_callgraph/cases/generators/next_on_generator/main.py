def primary_db():
    return "primary"

def replica_db():
    return "replica"

def connection_candidates():
    yield primary_db
    yield replica_db

def connect():
    candidates = connection_candidates()
    first = next(candidates)
    second = next(candidates)
    return first(), second()

if __name__ == "__main__":
    connect()
