class Plugin:
    def __init__(self, name):
        self.name = name

    def activate(self):
        return self.name + " active"

def activate_all(plugins: list[Plugin]) -> list[str]:
    return [plugin.activate() for plugin in plugins]

if __name__ == "__main__":
    activate_all([Plugin("auth"), Plugin("search")])
