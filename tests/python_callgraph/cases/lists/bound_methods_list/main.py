class Deployment:
    def build(self):
        return "built"

    def test(self):
        return "tested"

    def release(self):
        return "released"

    def run(self):
        steps = [self.build, self.test, self.release]
        return [step() for step in steps]

if __name__ == "__main__":
    Deployment().run()
