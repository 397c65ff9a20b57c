def start_service(name):
    return "start " + name

def stop_service(name):
    return "stop " + name

def restart_service(name):
    return "restart " + name

def control(action, name):
    actions = dict(start=start_service)
    actions.update({"stop": stop_service, "restart": restart_service})
    return actions[action](name)

if __name__ == "__main__":
    for action in ("start", "stop", "restart"):
        control(action, "nginx")
