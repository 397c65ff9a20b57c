def begin_transaction():
    return "begin"

def commit_transaction():
    return "commit"

def transactional(work):
    begin, commit = [begin_transaction, commit_transaction]
    begin()
    result = work * 2
    commit()
    return result

if __name__ == "__main__":
    transactional(21)
