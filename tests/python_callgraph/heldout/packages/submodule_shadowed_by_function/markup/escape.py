try:
    from ._speedups import escape_text
except ImportError:
    from ._native import escape_text


def escape(value):
    if hasattr(value, "__html__"):
        return value.__html__()
    return escape_text(str(value))
