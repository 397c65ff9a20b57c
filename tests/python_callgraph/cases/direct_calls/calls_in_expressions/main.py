def is_active(user):
    return user.get("active", False)

def display_name(user):
    return user["name"].title()

def count(items):
    return len(items)

def summary(users):
    active = [display_name(u) for u in users if is_active(u)]
    if count(active) > 0:
        return f"{count(active)} active: {', '.join(active)}"
    return "none"

if __name__ == "__main__":
    summary([{"name": "ada", "active": True}, {"name": "bob"}])
