class JsonMixin:
    def serialize(self):
        return "{}"

class XmlMixin:
    def serialize(self):
        return "<x/>"

class Report(JsonMixin, XmlMixin):
    pass

def publish():
    return Report().serialize()

if __name__ == "__main__":
    publish()
