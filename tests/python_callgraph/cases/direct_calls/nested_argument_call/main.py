def load_user(user_id):
    return {"id": user_id, "name": "ada"}

def current_user_id():
    return 7

def serialize(user):
    return str(user)

def respond(body):
    return {"status": 200, "body": body}

def profile_endpoint():
    return respond(serialize(load_user(current_user_id())))

if __name__ == "__main__":
    profile_endpoint()
