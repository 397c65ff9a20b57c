def load_env():
    return {"env": "prod"}

def load_file():
    return {"file": "app.toml"}

LOADERS = [load_env, load_file]

def load_settings():
    settings = {}
    for loader in LOADERS:
        settings.update(loader())
    return settings

if __name__ == "__main__":
    load_settings()
