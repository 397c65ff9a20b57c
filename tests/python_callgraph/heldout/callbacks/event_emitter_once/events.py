from collections import defaultdict


class EventEmitter:
    def __init__(self):
        self._listeners = defaultdict(list)

    def on(self, event, listener=None):
        if listener is None:
            def register(fn):
                self._listeners[event].append(fn)
                return fn
            return register
        self._listeners[event].append(listener)
        return listener

    def once(self, event, listener):
        def wrapper(*args):
            self.off(event, wrapper)
            return listener(*args)
        return self.on(event, wrapper)

    def off(self, event, listener):
        self._listeners[event].remove(listener)

    def emit(self, event, *args):
        for listener in list(self._listeners[event]):
            listener(*args)
        return bool(self._listeners[event])
