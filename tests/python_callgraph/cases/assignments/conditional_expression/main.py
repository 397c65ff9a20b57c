def send_email(user):
    return f"mail to {user}"

def send_sms(user):
    return f"sms to {user}"

def notify(user, prefers_sms):
    sender = send_sms if prefers_sms else send_email
    return sender(user)

if __name__ == "__main__":
    notify("ada", True)
    notify("bob", False)
