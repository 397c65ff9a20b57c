class UsageError(Exception):
    pass


class Context:
    def __init__(self, command, parent=None, obj=None):
        self.command = command
        self.parent = parent
        self.obj = obj if obj is not None else (parent.obj if parent else None)

    def fail(self, message):
        raise UsageError(message)

    def find_root(self):
        node = self
        while node.parent is not None:
            node = node.parent
        return node


class Command:
    def __init__(self, name, callback):
        self.name = name
        self.callback = callback

    def make_context(self, parent=None, obj=None):
        return Context(self, parent=parent, obj=obj)

    def invoke(self, ctx, args):
        return self.callback(ctx, *args)


class Group(Command):
    def __init__(self, name, callback=None):
        super().__init__(name, callback)
        self.commands = {}

    def command(self, name=None):
        def decorator(f):
            cmd = Command(name or f.__name__, f)
            self.commands[cmd.name] = cmd
            return cmd
        return decorator

    def invoke(self, ctx, args):
        if not args:
            ctx.fail("missing command")
        if self.callback is not None:
            self.callback(ctx)
        sub = self.commands.get(args[0])
        if sub is None:
            ctx.fail("no such command " + args[0])
        sub_ctx = sub.make_context(parent=ctx)
        return sub.invoke(sub_ctx, args[1:])

    def main(self, args, obj=None):
        ctx = self.make_context(obj=obj)
        try:
            return self.invoke(ctx, args)
        except UsageError as error:
            return "usage: " + str(error)


def group(name):
    def decorator(f):
        return Group(name, f)
    return decorator
