class Model:
    def save(self):
        return "saved " + type(self).__name__

class User(Model):
    def __init__(self, name):
        self.name = name

def register(name):
    user = User(name)
    return user.save()

if __name__ == "__main__":
    register("ada")
