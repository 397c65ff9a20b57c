class TimeoutError_(Exception):
    pass

def call_api():
    raise TimeoutError_()

def log_failure(error):
    return f"failed: {error!r}"

def release_connection():
    return None

def fetch():
    try:
        return call_api()
    except TimeoutError_ as error:
        log_failure(error)
        return None
    finally:
        release_connection()

if __name__ == "__main__":
    fetch()
