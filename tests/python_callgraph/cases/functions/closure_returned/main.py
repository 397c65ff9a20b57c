def make_counter(start):
    count = start

    def increment():
        nonlocal count
        count += 1
        return count

    return increment

def main():
    next_id = make_counter(100)
    next_id()
    return next_id()

if __name__ == "__main__":
    main()
