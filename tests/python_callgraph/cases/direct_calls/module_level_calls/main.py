def read_settings():
    return {"debug": True}

def configure_logging(settings):
    return settings["debug"]

SETTINGS = read_settings()
DEBUG = configure_logging(SETTINGS)
