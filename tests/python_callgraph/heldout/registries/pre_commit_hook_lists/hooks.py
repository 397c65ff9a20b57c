class HookFailed(Exception):
    def __init__(self, hook, reason):
        super().__init__(f"{hook.__name__}: {reason}")


class HookRegistry:
    def __init__(self):
        self.pre = []
        self.post = []

    def pre_commit(self, fn):
        self.pre.append(fn)
        return fn

    def post_commit(self, fn):
        self.post.append(fn)
        return fn

    def run_pre(self, files):
        for hook in self.pre:
            reason = hook(files)
            if reason:
                raise HookFailed(hook, reason)

    def run_post(self, files):
        return [hook(files) for hook in self.post]


registry = HookRegistry()
pre_commit = registry.pre_commit
post_commit = registry.post_commit
