def make_rate_limiter(limit, clock):
    calls = []

    def _expire(now):
        while calls and now - calls[0] >= 1.0:
            calls.pop(0)

    def allow():
        now = clock()
        _expire(now)
        if len(calls) < limit:
            calls.append(now)
            return True
        return False

    def remaining():
        _expire(clock())
        return limit - len(calls)

    def reset():
        nonlocal calls
        calls = []

    return {"allow": allow, "remaining": remaining, "reset": reset}


def fake_clock(start=0.0, step=0.25):
    now = start

    def tick():
        nonlocal now
        now += step
        return now
    return tick


def main():
    limiter = make_rate_limiter(2, fake_clock())
    decisions = [limiter["allow"]() for _ in range(5)]
    left = limiter["remaining"]()
    limiter["reset"]()
    return decisions, left


if __name__ == "__main__":
    main()
