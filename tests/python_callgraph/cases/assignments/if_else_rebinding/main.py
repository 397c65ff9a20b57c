def json_writer(rows):
    return "[" + ",".join(rows) + "]"

def csv_writer(rows):
    return "\n".join(rows)

def export(rows, fmt):
    if fmt == "json":
        writer = json_writer
    else:
        writer = csv_writer
    return writer(rows)

if __name__ == "__main__":
    export(["a"], "json")
    export(["a"], "csv")
