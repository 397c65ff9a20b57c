from app.api.users import get_user

if __name__ == "__main__":
    get_user(3)
