import functools


def parse_size(text):
    units = {"k": 1024, "m": 1024 ** 2}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


class Upload:
    def __init__(self, name, raw_size):
        self.name = name
        self._raw_size = raw_size
        self._tags = []

    @property
    def size(self):
        return parse_size(self._raw_size)

    @property
    def tags(self):
        return tuple(self._tags)

    @tags.setter
    def tags(self, values):
        self._tags = sorted(set(values))

    @functools.cached_property
    def extension(self):
        return self.name.rpartition(".")[2]

    def is_image(self):
        return self.extension in {"png", "jpg"}

    def summary(self):
        return f"{self.name} {self.size}B {self.tags}"


def accept(upload, limit):
    upload.tags = ["new", "unreviewed", "new"]
    if upload.size > limit:
        return "too big"
    return upload.summary() if upload.is_image() else "not an image"


if __name__ == "__main__":
    accept(Upload("cat.png", "3k"), 10_000)
    accept(Upload("huge.jpg", "20m"), 10_000)
