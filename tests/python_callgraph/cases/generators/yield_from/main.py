def list_files(folder):
    for name in ("a.txt", "b.txt"):
        yield folder + "/" + name

def walk(folders):
    for folder in folders:
        yield from list_files(folder)

def index_all():
    return list(walk(["docs", "src"]))

if __name__ == "__main__":
    index_all()
