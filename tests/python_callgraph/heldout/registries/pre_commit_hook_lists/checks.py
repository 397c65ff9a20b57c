from hooks import post_commit, pre_commit


def _is_python(path):
    return path.endswith(".py")


@pre_commit
def no_debugger(files):
    if any("pdb" in name for name in files if _is_python(name)):
        return "debugger left in"
    return None


@pre_commit
def max_size(files):
    return "too many files" if len(files) > 3 else None


@post_commit
def notify_ci(files):
    return f"ci: {len(files)} files"
