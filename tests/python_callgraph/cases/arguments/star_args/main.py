def check_disk():
    return "disk ok"

def check_memory():
    return "memory ok"

def run_checks(*checks):
    return [check() for check in checks]

def health():
    return run_checks(check_disk, check_memory)

if __name__ == "__main__":
    health()
