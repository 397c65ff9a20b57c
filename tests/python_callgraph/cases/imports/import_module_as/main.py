import storage_backend as storage

def archive(document):
    key = storage.make_key(document)
    return storage.put(key, document)

if __name__ == "__main__":
    archive("report.pdf")
