class Response:
    def __init__(self, body, status=200):
        self.body = body
        self.status = status


class HTTPError(Exception):
    def __init__(self, status):
        super().__init__(status)
        self.status = status


class App:
    def __init__(self, name):
        self.name = name
        self.view_functions = {}
        self.url_map = {}
        self.before_request_funcs = []
        self.error_handlers = {}

    def add_url_rule(self, rule, endpoint, view_func, methods=("GET",)):
        for method in methods:
            self.url_map[(method, rule)] = endpoint
        self.view_functions[endpoint] = view_func

    def route(self, rule, **options):
        def decorator(f):
            endpoint = options.pop("endpoint", f.__name__)
            self.add_url_rule(rule, endpoint, f, **options)
            return f
        return decorator

    def before_request(self, f):
        self.before_request_funcs.append(f)
        return f

    def errorhandler(self, status):
        def decorator(f):
            self.error_handlers[status] = f
            return f
        return decorator

    def make_response(self, rv):
        if isinstance(rv, Response):
            return rv
        return Response(rv)

    def preprocess_request(self, request):
        for func in self.before_request_funcs:
            rv = func(request)
            if rv is not None:
                return rv
        return None

    def dispatch_request(self, request):
        endpoint = self.url_map.get((request["method"], request["path"]))
        if endpoint is None:
            raise HTTPError(404)
        return self.view_functions[endpoint](request)

    def handle_http_error(self, error):
        handler = self.error_handlers.get(error.status)
        if handler is None:
            return Response("error", error.status)
        return handler(error)

    def full_dispatch_request(self, request):
        try:
            rv = self.preprocess_request(request)
            if rv is None:
                rv = self.dispatch_request(request)
        except HTTPError as error:
            rv = self.handle_http_error(error)
        return self.make_response(rv)
