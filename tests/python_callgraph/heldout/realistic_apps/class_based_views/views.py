class HttpResponse:
    def __init__(self, content, status=200):
        self.content = content
        self.status = status


class View:
    def __init__(self, **kwargs):
        for key, value in kwargs.items():
            setattr(self, key, value)

    @classmethod
    def as_view(cls, **initkwargs):
        def view(request):
            self = cls(**initkwargs)
            self.setup(request)
            return self.dispatch(request)
        return view

    def setup(self, request):
        self.request = request

    def dispatch(self, request):
        if request["method"] == "GET":
            return self.get(request)
        if request["method"] == "POST":
            return self.post(request)
        return self.http_method_not_allowed(request)

    def get(self, request):
        return self.http_method_not_allowed(request)

    def post(self, request):
        return self.http_method_not_allowed(request)

    def http_method_not_allowed(self, request):
        return HttpResponse("", status=405)


class TemplateResponseMixin:
    template_name = None

    def render_to_response(self, context):
        return HttpResponse(self.template_name + ":" + repr(context))


class ListView(TemplateResponseMixin, View):
    def get_queryset(self):
        return []

    def get(self, request):
        return self.render_to_response({"objects": self.get_queryset()})


class CreateView(TemplateResponseMixin, View):
    def form_valid(self, data):
        return HttpResponse("created", status=201)

    def post(self, request):
        return self.form_valid(request["data"])
