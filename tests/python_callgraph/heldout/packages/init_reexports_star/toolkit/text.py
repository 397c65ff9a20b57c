__all__ = ["slugify", "truncate"]


def _normalise(text):
    return " ".join(text.lower().split())


def slugify(text):
    return _normalise(text).replace(" ", "-")


def truncate(text, length):
    text = _normalise(text)
    return text if len(text) <= length else text[: length - 1] + "…"
