def parse_int(text):
    return int(text)


def parse_bool(text):
    return text.lower() in {"1", "true", "yes"}


def identity(text):
    return text


class Setting:
    parser = staticmethod(identity)

    def __init__(self, name, raw):
        self.name = name
        self.raw = raw

    def value(self):
        return self.parser(self.raw)

    def describe(self):
        return f"{self.name}={self.value()!r}"


class IntSetting(Setting):
    parser = staticmethod(parse_int)


class BoolSetting(Setting):
    parser = staticmethod(parse_bool)


class Exporter:
    def export_env(self, settings):
        return [f"{s.name.upper()}={s.raw}" for s in settings]

    def export_ini(self, settings):
        return [s.describe() for s in settings]


def export(settings, style):
    exporter = Exporter()
    if style == "env":
        return getattr(exporter, "export_env")(settings)
    return getattr(exporter, "export_ini")(settings)


if __name__ == "__main__":
    settings = [IntSetting("workers", "4"), BoolSetting("debug", "yes"), Setting("name", "svc")]
    export(settings, "env")
    export(settings, "ini")
    BoolSetting.parser("no")
