def fallback_handler(event):
    return f"unhandled {event}"

def click_handler(event):
    return f"clicked {event}"

def dispatch(event, handler=None):
    handler = handler or fallback_handler
    return handler(event)

if __name__ == "__main__":
    dispatch("button", click_handler)
    dispatch("scroll")
