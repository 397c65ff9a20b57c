from views import CreateView, ListView

ARTICLES = ["first", "second"]


class ArticleList(ListView):
    template_name = "articles.html"

    def get_queryset(self):
        return [title.title() for title in ARTICLES]


class ArticleCreate(CreateView):
    def form_valid(self, data):
        ARTICLES.append(data)
        return super().form_valid(data)


urlpatterns = [
    ("articles/", ArticleList.as_view()),
    ("articles/new/", ArticleCreate.as_view(template_name="new.html")),
]


def resolve(path):
    for pattern, view in urlpatterns:
        if pattern == path:
            return view
    raise LookupError(path)


def handle(path, request):
    return resolve(path)(request)


if __name__ == "__main__":
    handle("articles/", {"method": "GET"})
    handle("articles/new/", {"method": "POST", "data": "third"})
    handle("articles/", {"method": "DELETE"})
    handle("articles/new/", {"method": "GET"})
    handle("articles/", {"method": "POST", "data": "x"})
