from .adapters import FileAdapter, HTTPAdapter
from .models import Request


class Session:
    def __init__(self):
        self.headers = {"User-Agent": "httplib"}
        self.adapters = {}
        self.mount("https://", HTTPAdapter(retries=3))
        self.mount("http://", HTTPAdapter())
        self.mount("file://", FileAdapter())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def mount(self, prefix, adapter):
        self.adapters[prefix] = adapter

    def get_adapter(self, url):
        for prefix, adapter in self.adapters.items():
            if url.lower().startswith(prefix):
                return adapter
        raise ValueError("no adapter for " + url)

    def prepare_request(self, method, url, headers):
        merged = dict(self.headers)
        merged.update(headers or {})
        return Request(method, url, merged)

    def request(self, method, url, headers=None):
        prepared = self.prepare_request(method, url, headers)
        return self.send(prepared)

    def send(self, request):
        adapter = self.get_adapter(request.url)
        return adapter.send(request)

    def get(self, url, **kwargs):
        return self.request("GET", url, **kwargs)

    def post(self, url, **kwargs):
        return self.request("POST", url, **kwargs)

    def close(self):
        for adapter in self.adapters.values():
            adapter.close()
