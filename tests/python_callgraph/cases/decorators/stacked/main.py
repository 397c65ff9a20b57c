def authenticated(func):
    def check_auth(request):
        if not request.get("user"):
            return "401"
        return func(request)
    return check_auth

def timed(func):
    def measure(request):
        return func(request)
    return measure

@timed
@authenticated
def view_profile(request):
    return "profile of " + request["user"]

if __name__ == "__main__":
    view_profile({"user": "ada"})
