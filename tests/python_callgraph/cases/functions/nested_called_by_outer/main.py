def build_report(rows):
    def format_row(row):
        return " | ".join(str(cell) for cell in row)

    return "\n".join(format_row(row) for row in rows)

if __name__ == "__main__":
    build_report([(1, "a"), (2, "b")])
