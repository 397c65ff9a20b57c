def open_connection():
    return "conn"

def close_connection():
    return None

def with_resource(opener, closer):
    handle = opener()
    closer()
    return handle

def main():
    hooks = (open_connection, close_connection)
    return with_resource(*hooks)

if __name__ == "__main__":
    main()
