class Notifier:
    def send(self, message):
        return "log: " + message

class SlackNotifier(Notifier):
    def send(self, message):
        return "slack: " + message

def alert(message):
    return SlackNotifier().send(message)

if __name__ == "__main__":
    alert("disk full")
