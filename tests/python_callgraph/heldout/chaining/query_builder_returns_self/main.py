from orm import Table

users = Table("users", [
    {"name": "ada", "role": "admin", "age": 36},
    {"name": "bob", "role": "user", "age": 25},
    {"name": "cy", "role": "user", "age": 31},
])


def youngest_user():
    return users.query().filter(role="user").order_by("age").first()


def admin_count():
    return users.query().filter(role="admin").count()


if __name__ == "__main__":
    youngest_user()
    admin_count()
    users.query().order_by("name").limit(2).all()
