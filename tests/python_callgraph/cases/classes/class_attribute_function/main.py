def slugify(title):
    return title.lower().replace(" ", "-")

class Article:
    make_slug = slugify

    def __init__(self, title):
        self.title = title

    def url(self):
        return "/posts/" + Article.make_slug(self.title)

if __name__ == "__main__":
    Article("Hello World").url()
