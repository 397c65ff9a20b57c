class Task:
    def __init__(self, app, fn, name):
        self.app = app
        self.fn = fn
        self.name = name

    def __call__(self, *args):
        return self.run(*args)

    def run(self, *args):
        return self.fn(*args)

    def delay(self, *args):
        return self.app.send_task(self.name, args)


class TaskQueue:
    def __init__(self):
        self.tasks = {}
        self.pending = []

    def task(self, fn=None, *, name=None):
        def create(f):
            created = Task(self, f, name or f.__name__)
            self.tasks[created.name] = created
            return created
        if fn is not None:
            return create(fn)
        return create

    def send_task(self, name, args):
        self.pending.append((name, args))
        return len(self.pending)


class Worker:
    def __init__(self, app):
        self.app = app
        self.done = 0

    def drain(self):
        while self.app.pending:
            name, args = self.app.pending.pop(0)
            self.app.tasks[name].run(*args)
            self.done += 1
        return self.done
