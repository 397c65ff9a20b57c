class Router:
    def handler_for(self, path):
        if path == "/health":
            return self.health
        return self.not_found

    def health(self):
        return 200

    def not_found(self):
        return 404

def serve(path):
    handler = Router().handler_for(path)
    return handler()

if __name__ == "__main__":
    serve("/health")
    serve("/nope")
