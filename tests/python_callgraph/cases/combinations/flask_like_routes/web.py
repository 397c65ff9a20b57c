class App:
    def __init__(self):
        self.routes = {}

    def route(self, path):
        def decorator(view):
            self.routes[path] = view
            return view
        return decorator

    def not_found(self):
        return "404"

    def dispatch(self, path):
        view = self.routes.get(path)
        if view is None:
            return self.not_found()
        return view()
