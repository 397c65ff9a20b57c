from .escape import escape


class Markup(str):
    def __html__(self):
        return self


def render(template, **values):
    return Markup(template.format(**{key: escape(value) for key, value in values.items()}))
