def fetch_price(symbol):
    return {"ACME": 12.5}.get(symbol, 0.0)

def with_cache(loader):
    cache = {}

    def cached_load(key):
        if key not in cache:
            cache[key] = loader(key)
        return cache[key]

    return cached_load

def main():
    price = with_cache(fetch_price)
    return price("ACME")

if __name__ == "__main__":
    main()
