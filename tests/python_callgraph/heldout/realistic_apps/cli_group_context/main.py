from cli import group


class Store:
    def __init__(self):
        self.items = []

    def add(self, item):
        self.items.append(item)

    def dump(self):
        return list(self.items)


@group("todo")
def todo(ctx):
    ctx.obj.add("session started")


@todo.command()
def add(ctx, text):
    ctx.find_root().obj.add(text)


@todo.command("list")
def list_items(ctx):
    return ctx.obj.dump()


if __name__ == "__main__":
    store = Store()
    todo.main(["add", "buy milk"], obj=store)
    todo.main(["list"], obj=store)
    todo.main([], obj=store)
    todo.main(["remove"], obj=store)
