def log_calls(func):
    def wrapper(*args):
        result = func(*args)
        return result
    return wrapper

@log_calls
def create_user(name):
    return {"name": name}

if __name__ == "__main__":
    create_user("ada")
