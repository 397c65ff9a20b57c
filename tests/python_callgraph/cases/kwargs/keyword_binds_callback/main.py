def on_success(result):
    return "ok " + str(result)

def on_error(error):
    return "error " + str(error)

def submit(value, success, failure):
    if value >= 0:
        return success(value)
    return failure(value)

def main():
    submit(1, failure=on_error, success=on_success)
    submit(-1, failure=on_error, success=on_success)

if __name__ == "__main__":
    main()
