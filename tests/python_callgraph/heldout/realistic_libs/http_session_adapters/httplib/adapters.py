from .models import Response


class BaseAdapter:
    def send(self, request):
        raise NotImplementedError

    def close(self):
        pass


class HTTPAdapter(BaseAdapter):
    def __init__(self, retries=0):
        self.retries = retries

    def send(self, request):
        return Response(request, 200, "remote:" + request.url)


class FileAdapter(BaseAdapter):
    def send(self, request):
        status = 404 if request.url.endswith("missing") else 200
        return Response(request, status, "file:" + request.url)
