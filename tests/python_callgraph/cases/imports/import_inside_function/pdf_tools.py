def render(report):
    return b"%PDF-" + report.encode()
