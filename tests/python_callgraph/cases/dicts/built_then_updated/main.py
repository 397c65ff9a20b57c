def on_created(event):
    return "created " + event

def on_deleted(event):
    return "deleted " + event

def build_routes():
    routes = {}
    routes["created"] = on_created
    routes["deleted"] = on_deleted
    return routes

def process(kind, event):
    routes = build_routes()
    handler = routes[kind]
    return handler(event)

if __name__ == "__main__":
    process("created", "a.txt")
    process("deleted", "b.txt")
