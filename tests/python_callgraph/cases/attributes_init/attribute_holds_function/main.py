def log_to_console(line):
    return "console: " + line

class Job:
    def __init__(self, name, log):
        self.name = name
        self.log = log

    def run(self):
        return self.log(self.name + " finished")

if __name__ == "__main__":
    Job("backup", log_to_console).run()
