class Logger:
    def write(self, line):
        return line

class BaseWorker:
    def __init__(self):
        self.logger = Logger()

class EmailWorker(BaseWorker):
    def work(self, email):
        return self.logger.write("sending " + email)

if __name__ == "__main__":
    EmailWorker().work("ada@example.com")
