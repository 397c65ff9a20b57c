import functools


def notify(channel, message, urgent=False):
    prefix = "!" if urgent else ""
    return f"{prefix}[{channel}] {message}"


class Mailer:
    def __init__(self, sender):
        self.sender = sender

    def send(self, recipient, body):
        return f"{self.sender} -> {recipient}: {body}"


class Scheduler:
    def __init__(self):
        self.jobs = []

    def add(self, job):
        self.jobs.append(job)

    def run_pending(self, text):
        return [job(text) for job in self.jobs]


def build_scheduler():
    scheduler = Scheduler()
    scheduler.add(functools.partial(notify, "ops"))
    scheduler.add(functools.partial(notify, "pager", urgent=True))
    scheduler.add(functools.partial(Mailer("noreply").send, "team@example.org"))
    return scheduler


def page_now(text):
    page = functools.partial(notify, "pager", urgent=True)
    return page(text)


if __name__ == "__main__":
    build_scheduler().run_pending("deploy finished")
    page_now("disk full")
