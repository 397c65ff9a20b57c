def migrate_v1(db):
    return db + ["v1"]

def migrate_v2(db):
    return db + ["v2"]

def upgrade(db):
    return migrate_v2(db)

if __name__ == "__main__":
    upgrade([])
