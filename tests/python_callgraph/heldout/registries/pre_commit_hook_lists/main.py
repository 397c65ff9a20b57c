import checks
from hooks import HookFailed, registry


def commit(files):
    try:
        registry.run_pre(files)
    except HookFailed as error:
        return str(error)
    return registry.run_post(files)


if __name__ == "__main__":
    commit(["a.py", "b.txt"])
    commit(["pdb_helper.py"])
    commit(["a", "b", "c", "d"])
