def exponential_backoff(attempt):
    return 2 ** attempt

class RetryPolicy:
    def __init__(self, attempts, delay):
        self.attempts = attempts
        self.delay = delay

    def schedule(self):
        return [self.delay(n) for n in range(self.attempts)]

def main():
    policy = RetryPolicy(attempts=3, delay=exponential_backoff)
    return policy.schedule()

if __name__ == "__main__":
    main()
