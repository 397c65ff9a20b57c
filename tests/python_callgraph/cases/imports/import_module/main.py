import mailer

def welcome(user):
    return mailer.send(user, "Welcome!")

if __name__ == "__main__":
    welcome("ada@example.com")
