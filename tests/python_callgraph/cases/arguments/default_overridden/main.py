def plain_hash(password):
    return str(len(password))

def salted_hash(password):
    return "salt" + password[::-1]

def hash_password(password, hasher=plain_hash):
    return hasher(password)

def register(user, password):
    return user, hash_password(password, salted_hash)

def login(user, password):
    return hash_password(password)

if __name__ == "__main__":
    register("ada", "pw")
    login("ada", "pw")
