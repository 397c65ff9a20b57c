def is_weekend(day):
    return day in ("sat", "sun")

is_workday = lambda day: not is_weekend(day)
shout = lambda text: text.upper()

def plan(day):
    if is_workday(day):
        return shout("work")
    return "rest"

if __name__ == "__main__":
    plan("mon")
