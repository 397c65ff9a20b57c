def logging_middleware(next_handler):
    def handle(request):
        response = next_handler(request)
        return response
    return handle

def auth_middleware(next_handler):
    def handle(request):
        if "token" not in request:
            return {"status": 401}
        return next_handler(request)
    return handle

def endpoint(request):
    return {"status": 200, "user": request["token"]}

def build_app():
    return logging_middleware(auth_middleware(endpoint))

if __name__ == "__main__":
    app = build_app()
    app({"token": "abc"})
