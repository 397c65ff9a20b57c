class HttpError(Exception):
    def __init__(self, status):
        super().__init__(status)
        self.status = status

    def to_response(self):
        return {"status": self.status}

def get_page(path):
    raise HttpError(404)

def serve(path):
    try:
        return get_page(path)
    except HttpError as error:
        return error.to_response()

if __name__ == "__main__":
    serve("/missing")
