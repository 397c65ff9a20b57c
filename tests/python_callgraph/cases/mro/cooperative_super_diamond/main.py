class Base:
    def close(self):
        return ["base"]

class FileResource(Base):
    def close(self):
        return ["file"] + super().close()

class LockResource(Base):
    def close(self):
        return ["lock"] + super().close()

class LockedFile(FileResource, LockResource):
    def close(self):
        return ["locked"] + super().close()

def shutdown():
    LockedFile().close()
    FileResource().close()

if __name__ == "__main__":
    shutdown()
