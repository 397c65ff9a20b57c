from abc import ABC, abstractmethod

class Importer(ABC):
    def run(self, source):
        rows = self.read(source)
        cleaned = [self.transform(row) for row in rows]
        return self.write(cleaned)

    @abstractmethod
    def read(self, source):
        raise NotImplementedError

    def transform(self, row):
        return row

    def write(self, rows):
        return len(rows)

class CsvImporter(Importer):
    def read(self, source):
        return source.split(",")

class JsonImporter(Importer):
    def read(self, source):
        return [source]

    def transform(self, row):
        return row.strip("{}")

def import_all():
    CsvImporter().run("a,b")
    JsonImporter().run("{a}")

if __name__ == "__main__":
    import_all()
