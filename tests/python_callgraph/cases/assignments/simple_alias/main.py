def save_record(record):
    return {"saved": record}

def main():
    persist = save_record
    persist("invoice-1")

if __name__ == "__main__":
    main()
