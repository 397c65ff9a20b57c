from .signals import post_save, pre_delete


class Model:
    def save(self):
        post_save.send(type(self), instance=self, created=True)

    def delete(self):
        pre_delete.send(type(self), instance=self)


class User(Model):
    def __init__(self, email):
        self.email = email


class Order(Model):
    pass
