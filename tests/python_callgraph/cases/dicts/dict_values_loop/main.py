def check_database():
    return True

def check_queue():
    return True

def readiness():
    probes = {"db": check_database, "queue": check_queue}
    return {name: probe() for name, probe in probes.items()}

if __name__ == "__main__":
    readiness()
