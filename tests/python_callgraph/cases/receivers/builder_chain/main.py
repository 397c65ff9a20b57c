class Request:
    def __init__(self, method, url, headers):
        self.method, self.url, self.headers = method, url, headers

    def send(self):
        return (self.method, self.url)

class RequestBuilder:
    def __init__(self, url):
        self.url = url
        self.method = "GET"
        self.headers = {}

    def with_method(self, method):
        self.method = method
        return self

    def with_header(self, key, value):
        self.headers[key] = value
        return self

    def build(self):
        return Request(self.method, self.url, self.headers)

def post_json(url):
    return RequestBuilder(url).with_method("POST").with_header("Content-Type", "json").build().send()

if __name__ == "__main__":
    post_json("/api")
