def primary_handler(request):
    return "primary " + request

def backup_handler(request):
    return "backup " + request

def route(request):
    handlers = (primary_handler, backup_handler)
    return handlers[0](request)

if __name__ == "__main__":
    route("GET /")
