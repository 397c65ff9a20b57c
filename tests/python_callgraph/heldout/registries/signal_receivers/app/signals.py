class Signal:
    def __init__(self, name):
        self.name = name
        self.receivers = []

    def connect(self, receiver=None, sender=None):
        def attach(fn):
            self.receivers.append((sender, fn))
            return fn
        if receiver is None:
            return attach
        return attach(receiver)

    def send(self, sender, **kwargs):
        return [(fn, fn(sender, **kwargs)) for wanted, fn in self.receivers
                if wanted is None or wanted is sender]


post_save = Signal("post_save")
pre_delete = Signal("pre_delete")
