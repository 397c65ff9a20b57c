class TimestampMixin:
    def touch(self):
        return 0

class SoftDeleteMixin:
    def soft_delete(self):
        return "deleted"

class Document(TimestampMixin, SoftDeleteMixin):
    def __init__(self, title):
        self.title = title

def remove(title):
    doc = Document(title)
    return doc.soft_delete()

if __name__ == "__main__":
    remove("draft")
