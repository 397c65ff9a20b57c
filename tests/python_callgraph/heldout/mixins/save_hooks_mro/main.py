import time

AUDIT_LOG = []


class Model:
    def __init__(self, **fields):
        self.fields = fields
        self.saved = False

    def validate(self):
        return True

    def save(self):
        if self.validate():
            self.saved = True
        return self


class TimestampMixin:
    def save(self):
        self.fields["updated_at"] = time.time()
        return super().save()


class AuditMixin:
    def save(self):
        AUDIT_LOG.append(type(self).__name__)
        return super().save()

    def validate(self):
        return "author" in self.fields and super().validate()


class Article(TimestampMixin, AuditMixin, Model):
    pass


class Comment(AuditMixin, Model):
    def __init__(self, text, author):
        super().__init__(text=text, author=author)


class Session(TimestampMixin, Model):
    pass


def save_all():
    items = [Article(title="t", author="ada"), Comment("nice", "bob"), Session(token="x")]
    return [item.save() for item in items]


if __name__ == "__main__":
    save_all()
