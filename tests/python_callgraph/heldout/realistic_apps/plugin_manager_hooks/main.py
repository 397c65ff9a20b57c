import timing_plugin
from pluginmanager import Config, PluginManager


class DoctestPlugin:
    def configure(self, config):
        config.addoption("doctest_glob", "*.txt")

    def collect(self, path):
        return [path + "::doctest"] if path.endswith(".txt") else []


class PythonPlugin:
    def collect(self, path):
        return [path + "::test_one", path + "::test_two"] if path.endswith(".py") else []


def main(args):
    pm = PluginManager()
    pm.register(timing_plugin)
    pm.register(DoctestPlugin())
    pm.register(PythonPlugin())
    config = Config(args)
    pm.call_configure(config)
    return [item for path in args for item in pm.call_collect(path)]


if __name__ == "__main__":
    main(["test_a.py", "readme.txt"])
