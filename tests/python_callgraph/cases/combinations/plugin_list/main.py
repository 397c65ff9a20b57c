PLUGINS = []

class Plugin:
    def __init__(self):
        self.enabled = True

    def on_load(self, app):
        return None

def plugin(cls):
    PLUGINS.append(cls())
    return cls

@plugin
class MetricsPlugin(Plugin):
    def on_load(self, app):
        return app + ":metrics"

@plugin
class CorsPlugin(Plugin):
    def on_load(self, app):
        return app + ":cors"

def load_plugins(app):
    for extension in PLUGINS:
        app = extension.on_load(app)
    return app

if __name__ == "__main__":
    load_plugins("app")
