class Connection:
    def __init__(self, url: str):
        self.url = url

    def execute(self, sql: str, *params):
        return [(sql, params)]
