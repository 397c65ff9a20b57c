def do_upper(value):
    return str(value).upper()


def do_default(value, default=""):
    return default if value is None else value


def do_join(value, separator=", "):
    return separator.join(do_default(item, "?") for item in value)


DEFAULT_FILTERS = {
    "upper": do_upper,
    "default": do_default,
    "join": do_join,
}
