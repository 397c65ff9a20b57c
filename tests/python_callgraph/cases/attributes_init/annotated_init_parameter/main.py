class SmtpClient:
    def __init__(self, host):
        self.host = host

    def deliver(self, to, body):
        return (self.host, to, body)

class Mailer:
    def __init__(self, client: SmtpClient):
        self.client = client

    def send_welcome(self, to):
        return self.client.deliver(to, "Welcome!")

def main():
    mailer = Mailer(SmtpClient("smtp.local"))
    mailer.send_welcome("ada@example.com")

if __name__ == "__main__":
    main()
