def create_order(payload):
    return ("created", payload)

def cancel_order(payload):
    return ("cancelled", payload)

HANDLERS = {"create": create_order, "cancel": cancel_order}

def handle(command, payload):
    return HANDLERS[command](payload)

if __name__ == "__main__":
    handle("create", {"id": 1})
    handle("cancel", {"id": 1})
