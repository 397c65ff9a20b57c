from events import EventEmitter

bus = EventEmitter()
seen = []


@bus.on("user.created")
def send_welcome(user):
    seen.append("welcome " + user)


def track_signup(user):
    seen.append("tracked " + user)


def warm_cache(user):
    seen.append("cache " + user)


bus.on("user.created", track_signup)
bus.once("user.created", warm_cache)

if __name__ == "__main__":
    bus.emit("user.created", "ada")
    bus.emit("user.created", "bob")
    bus.emit("user.deleted", "bob")
