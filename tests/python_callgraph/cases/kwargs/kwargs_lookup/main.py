def audit_hook(event):
    return "audit " + event

def emit(event, **hooks):
    before = hooks["before"]
    before(event)
    return event

def main():
    emit("login", before=audit_hook)

if __name__ == "__main__":
    main()
