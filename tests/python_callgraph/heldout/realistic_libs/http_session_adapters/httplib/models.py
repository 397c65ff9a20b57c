class Request:
    def __init__(self, method, url, headers=None):
        self.method = method
        self.url = url
        self.headers = dict(headers or {})


class Response:
    def __init__(self, request, status, body=""):
        self.request = request
        self.status = status
        self.body = body

    def raise_for_status(self):
        if self.status >= 400:
            raise HTTPError(self)
        return self


class HTTPError(Exception):
    def __init__(self, response):
        super().__init__(f"{response.status} for {response.request.url}")
        self.response = response
