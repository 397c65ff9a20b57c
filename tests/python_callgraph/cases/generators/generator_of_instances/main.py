class Job:
    def __init__(self, name):
        self.name = name

    def run(self):
        return self.name + " done"

def pending_jobs(names):
    for name in names:
        yield Job(name)

def worker(names):
    return [job.run() for job in pending_jobs(names)]

if __name__ == "__main__":
    worker(["backup", "report"])
