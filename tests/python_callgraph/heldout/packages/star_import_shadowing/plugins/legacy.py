def render(text):
    return "<pre>" + text + "</pre>"


def _escape(text):
    return text.replace("<", "&lt;")


def escape_all(items):
    return [_escape(item) for item in items]
