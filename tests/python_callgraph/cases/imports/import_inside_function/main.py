def export_pdf(report):
    import pdf_tools
    return pdf_tools.render(report)

if __name__ == "__main__":
    export_pdf("q3")
