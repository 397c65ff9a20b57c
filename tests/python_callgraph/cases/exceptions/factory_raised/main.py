class QuotaExceeded(Exception):
    def __init__(self, user, limit):
        super().__init__(f"{user} over {limit}")

def quota_error(user):
    return QuotaExceeded(user, 100)

def upload(user, size):
    if size > 100:
        raise quota_error(user)
    return size

if __name__ == "__main__":
    try:
        upload("ada", 500)
    except QuotaExceeded:
        pass
