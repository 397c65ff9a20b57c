from routing import Map, NotFound, Rule

url_map = Map([
    Rule("/users/<int:user_id>", "user"),
    Rule("/users/<name>/posts", "posts"),
    Rule("/static/<path:filename>", "static"),
])


def show_user(user_id):
    return f"user {user_id}"


def list_posts(name):
    return f"posts of {name}"


def serve_static(filename):
    return "file " + filename


VIEWS = {"user": show_user, "posts": list_posts, "static": serve_static}


def application(path):
    adapter = url_map.bind("example.com")
    try:
        return adapter.dispatch(VIEWS, path)
    except NotFound:
        return "404"


if __name__ == "__main__":
    for path in ["/users/7", "/users/ada/posts", "/static/app.js", "/users/x", "/nope"]:
        application(path)
