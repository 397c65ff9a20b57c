class Handler:
    def handle(self, request):
        return [request]

class LoggingHandler(Handler):
    def handle(self, request):
        return ["log"] + super().handle(request)

class AuthHandler(LoggingHandler):
    def handle(self, request):
        return ["auth"] + super().handle(request)

if __name__ == "__main__":
    AuthHandler().handle("GET /")
