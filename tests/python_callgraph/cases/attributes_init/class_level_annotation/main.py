class UserStore:
    def find(self, user_id):
        return {"id": user_id}

class ProfilePage:
    store: UserStore

    def __init__(self, store):
        self.store = store

    def render(self, user_id):
        user = self.store.find(user_id)
        return f"<h1>{user['id']}</h1>"

if __name__ == "__main__":
    ProfilePage(UserStore()).render(5)
