HANDLERS = []

def register(func):
    HANDLERS.append(func)
    return func

@register
def on_startup():
    return "ready"

def boot():
    return on_startup()

if __name__ == "__main__":
    boot()
