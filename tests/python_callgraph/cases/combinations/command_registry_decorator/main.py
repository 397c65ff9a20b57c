COMMANDS = {}

def command(name):
    def register(func):
        COMMANDS[name] = func
        return func
    return register

def echo(text):
    return text

@command("init")
def init_project(args):
    return echo("initialised " + " ".join(args))

@command("deploy")
def deploy(args):
    return echo("deployed to " + args[0])

def run(argv):
    handler = COMMANDS.get(argv[0])
    if handler is None:
        return echo("unknown command")
    return handler(argv[1:])

if __name__ == "__main__":
    run(["init", "demo"])
    run(["deploy", "prod"])
    run(["nope"])
