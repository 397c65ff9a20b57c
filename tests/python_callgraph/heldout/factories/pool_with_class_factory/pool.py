class PoolExhausted(RuntimeError):
    pass


class Pool:
    def __init__(self, factory, size=2):
        self._factory = factory
        self._idle = []
        self._created = 0
        self.size = size

    def acquire(self):
        if self._idle:
            return self._idle.pop()
        if self._created >= self.size:
            raise PoolExhausted(self.size)
        self._created += 1
        return self._factory()

    def release(self, resource):
        resource.reset()
        self._idle.append(resource)
