import time


def timing(app):
    def middleware(environ):
        started = time.perf_counter()
        response = app(environ)
        response["elapsed"] = time.perf_counter() - started
        return response
    return middleware


def require_header(name):
    def wrap(app):
        def middleware(environ):
            if name not in environ:
                return {"status": 400, "body": "missing " + name}
            return app(environ)
        return middleware
    return wrap


def compose(app, *layers):
    for layer in reversed(layers):
        app = layer(app)
    return app
