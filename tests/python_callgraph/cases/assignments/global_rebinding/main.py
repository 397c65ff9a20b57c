def default_logger(message):
    return f"[default] {message}"

def audit_logger(message):
    return f"[audit] {message}"

log = default_logger

def use_audit_logging():
    global log
    log = audit_logger

def record(event):
    return log(event)

if __name__ == "__main__":
    record("started")
    use_audit_logging()
    record("changed")
