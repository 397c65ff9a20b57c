from queue_app import TaskQueue

app = TaskQueue()
outbox = []


@app.task
def send_email(address, subject):
    outbox.append((address, subject))


@app.task(name="reports.build")
def build_report(owner):
    send_email(owner, "report started")
    send_email.delay(owner, "report ready")
    return owner
