class CountCalls:
    def __init__(self, func):
        self.func = func
        self.calls = 0

    def __call__(self, *args):
        self.calls += 1
        return self.func(*args)

@CountCalls
def send_report(recipient):
    return f"report to {recipient}"

if __name__ == "__main__":
    send_report("ops")
