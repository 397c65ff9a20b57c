class Session:
    def commit(self):
        return "committed"

class App:
    def __init__(self):
        self.db = Session()

class Controller:
    def __init__(self, app):
        self.app = app

    def save(self):
        return self.app.db.commit()

def main():
    app = App()
    return Controller(app).save()

if __name__ == "__main__":
    main()
