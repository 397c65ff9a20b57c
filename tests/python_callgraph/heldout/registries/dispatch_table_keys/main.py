import sys


def cmd_init(args):
    return "initialised " + (args[0] if args else ".")


def cmd_status(args):
    return "clean"


def cmd_commit(args):
    return "committed " + " ".join(args)


def cmd_help(args):
    return "usage: tool <command>"


COMMANDS = {
    "init": cmd_init,
    "status": cmd_status,
    "commit": cmd_commit,
}

ALIASES = {"st": "status", "ci": "commit"}


def run(argv):
    name, args = argv[0], argv[1:]
    name = ALIASES.get(name, name)
    handler = COMMANDS.get(name, cmd_help)
    return handler(args)


def bootstrap(path):
    return COMMANDS["init"]([path])


if __name__ == "__main__":
    bootstrap("repo")
    for argv in (["st"], ["ci", "-m", "x"], ["init"], ["push"]):
        run(argv)
    run(sys.argv[1:] or ["status"])
