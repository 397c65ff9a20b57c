from webapp import App, HTTPError, Response

app = App(__name__)


def load_user(request):
    request["user"] = request.get("token", "anonymous")


@app.before_request
def require_json(request):
    if request.get("format") == "xml":
        return Response("xml not supported", 415)
    return load_user(request)


@app.route("/")
def index(request):
    return "hello " + request["user"]


@app.route("/items", methods=["POST"], endpoint="create")
def create_item(request):
    if "name" not in request:
        raise HTTPError(400)
    return Response("created", 201)


@app.errorhandler(404)
def not_found(error):
    return Response("nothing here", error.status)


if __name__ == "__main__":
    app.full_dispatch_request({"method": "GET", "path": "/"})
    app.full_dispatch_request({"method": "POST", "path": "/items", "name": "x"})
    app.full_dispatch_request({"method": "POST", "path": "/items"})
    app.full_dispatch_request({"method": "GET", "path": "/nope"})
    app.full_dispatch_request({"method": "GET", "path": "/", "format": "xml"})
