class Document:
    def __init__(self, collection, doc_id):
        self.collection = collection
        self.doc_id = doc_id

    def fetch(self):
        return self.collection.client.request("GET", f"{self.collection.name}/{self.doc_id}")

    def delete(self):
        return self.collection.client.request("DELETE", f"{self.collection.name}/{self.doc_id}")


class Collection:
    def __init__(self, client, name):
        self.client = client
        self.name = name

    def document(self, doc_id):
        return Document(self, doc_id)

    def list(self):
        return self.client.request("GET", self.name)
