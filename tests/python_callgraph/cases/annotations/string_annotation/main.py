def archive(doc: "Document") -> "Archive":
    doc.freeze()
    return ARCHIVES[0]

def store(doc):
    return archive(doc).add(doc)

class Document:
    def freeze(self):
        return "frozen"

class Archive:
    def add(self, doc):
        return doc

ARCHIVES = [Archive()]

if __name__ == "__main__":
    store(Document())
