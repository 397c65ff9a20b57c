from middleware import compose, require_header, timing


def application(environ):
    return {"status": 200, "body": "hello " + environ.get("user", "anon")}


def with_user(app):
    def middleware(environ):
        environ = dict(environ, user=environ.get("HTTP_X_USER", "anon"))
        return app(environ)
    return middleware


stack = compose(application, timing, require_header("HTTP_HOST"), with_user)

if __name__ == "__main__":
    stack({"HTTP_HOST": "example.org", "HTTP_X_USER": "ada"})
    stack({})
