class PermissionDenied(Exception):
    pass


class BaseView:
    def dispatch(self, request):
        return self.handle(request)

    def handle(self, request):
        return "ok"


class LoginRequiredMixin:
    def dispatch(self, request):
        if not request.get("user"):
            return self.handle_no_permission()
        return super().dispatch(request)

    def handle_no_permission(self):
        raise PermissionDenied("login required")


class StaffRequiredMixin(LoginRequiredMixin):
    def dispatch(self, request):
        if request.get("user") and not request.get("staff"):
            return self.handle_no_permission()
        return super().dispatch(request)


class CachedMixin:
    cache = {}

    def dispatch(self, request):
        key = request.get("path")
        if key not in self.cache:
            self.cache[key] = super().dispatch(request)
        return self.cache[key]


class Dashboard(LoginRequiredMixin, BaseView):
    def handle(self, request):
        return "dashboard for " + request["user"]


class AdminPanel(CachedMixin, StaffRequiredMixin, BaseView):
    def handle_no_permission(self):
        return "redirect to login"


def serve(view, request):
    try:
        return view.dispatch(request)
    except PermissionDenied:
        return "403"


if __name__ == "__main__":
    serve(Dashboard(), {"user": "ada", "path": "/"})
    serve(Dashboard(), {"path": "/"})
    serve(AdminPanel(), {"user": "ada", "staff": True, "path": "/admin"})
    serve(AdminPanel(), {"user": "bob", "path": "/admin/x"})
    serve(AdminPanel(), {"path": "/admin/y"})
