class Connection:
    def __init__(self, url):
        self.url = url

    def execute(self, sql):
        return [sql]

class Database:
    def __init__(self, url):
        self.url = url
        self.conn = None

    def connect(self):
        self.conn = Connection(self.url)

    def query(self, sql):
        if self.conn is None:
            self.connect()
        return self.conn.execute(sql)

if __name__ == "__main__":
    Database("pg://").query("select 1")
