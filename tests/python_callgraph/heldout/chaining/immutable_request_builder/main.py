class RequestBuilder:
    def __init__(self, method="GET", url="", headers=None, params=None):
        self.method = method
        self.url = url
        self.headers = headers or {}
        self.params = params or {}

    def _replace(self, **changes):
        fields = {"method": self.method, "url": self.url,
                  "headers": dict(self.headers), "params": dict(self.params)}
        fields.update(changes)
        return RequestBuilder(**fields)

    def to(self, url):
        return self._replace(url=url)

    def using(self, method):
        return self._replace(method=method.upper())

    def header(self, name, value):
        return self._replace(headers={**self.headers, name: value})

    def param(self, name, value):
        return self._replace(params={**self.params, name: value})

    def build(self):
        query = "&".join(f"{k}={v}" for k, v in sorted(self.params.items()))
        return f"{self.method} {self.url}{'?' + query if query else ''} {self.headers}"


def api_base(token):
    return RequestBuilder().to("https://api.example.org").header("Authorization", token)


def search(term):
    return api_base("t0k").param("q", term).param("page", 1).build()


def delete(item_id):
    base = api_base("t0k")
    return base.using("delete").to(base.url + f"/items/{item_id}").build()


if __name__ == "__main__":
    search("python")
    delete(7)
