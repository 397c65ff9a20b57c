def utc_now():
    return 0

def fixed_clock():
    return 1700000000

def stamp(record, *, clock=utc_now):
    record["at"] = clock()
    return record

def main():
    stamp({})
    stamp({}, clock=fixed_clock)

if __name__ == "__main__":
    main()
