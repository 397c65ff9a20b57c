def read_source():
    return ["a", "b"]

def write_sink(rows):
    return len(rows)

def run_etl(extract, load):
    return load(extract())

def main():
    steps = {"extract": read_source, "load": write_sink}
    return run_etl(**steps)

if __name__ == "__main__":
    main()
