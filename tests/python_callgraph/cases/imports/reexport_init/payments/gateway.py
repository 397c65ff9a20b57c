class Gateway:
    def __init__(self, api_key):
        self.api_key = api_key

    def post(self, path, body):
        return {"path": path, **body}
