class Config:
    def __init__(self, args):
        self.args = args
        self.options = {}

    def addoption(self, name, default):
        self.options.setdefault(name, default)


class PluginManager:
    def __init__(self):
        self.plugins = []

    def register(self, plugin):
        if plugin not in self.plugins:
            self.plugins.append(plugin)
        return plugin

    def call_configure(self, config):
        for plugin in self.plugins:
            hook = getattr(plugin, "configure", None)
            if hook is not None:
                hook(config)

    def call_collect(self, path):
        items = []
        for plugin in self.plugins:
            if hasattr(plugin, "collect"):
                items.extend(getattr(plugin, "collect")(path))
        return items
