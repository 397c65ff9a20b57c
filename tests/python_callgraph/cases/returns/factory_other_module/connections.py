class Connection:
    def __init__(self, host):
        self.host = host

    def execute(self, sql):
        return [(self.host, sql)]

def connect(host):
    return Connection(host)
