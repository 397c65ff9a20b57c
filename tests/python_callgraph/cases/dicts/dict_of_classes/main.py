class PdfExporter:
    def export(self, report):
        return b"%PDF" + report.encode()

class CsvExporter:
    def __init__(self):
        self.separator = ","

    def export(self, report):
        return report.replace(" ", self.separator).encode()

EXPORTERS = {"pdf": PdfExporter, "csv": CsvExporter}

def export_report(report, fmt):
    exporter = EXPORTERS[fmt]()
    return exporter.export(report)

if __name__ == "__main__":
    export_report("q1 sales", "pdf")
    export_report("q1 sales", "csv")
