import backends.sqlite as lite
from backends import postgres as pg


def engine_for(url):
    if url.startswith("postgres://"):
        return pg.connect(url)
    if url.startswith("sqlite:///"):
        return lite.connect(url[len("sqlite:///"):])
    from backends.sqlite import Engine as MemoryEngine
    return MemoryEngine(":memory:")


def migrate(url):
    import backends.postgres
    engine = engine_for(url)
    if isinstance(engine, backends.postgres.Engine):
        return engine.execute("SET search_path")
    return engine.execute("PRAGMA foreign_keys=ON")


if __name__ == "__main__":
    migrate("postgres://db")
    migrate("sqlite:///app.db")
    migrate("memory")
