class Exporter:
    def export(self, rows):
        return self.header() + rows

    def header(self):
        return ["id"]

class DetailedExporter(Exporter):
    def header(self):
        return ["id", "name", "email"]

def main():
    Exporter().export([])
    DetailedExporter().export([])

if __name__ == "__main__":
    main()
