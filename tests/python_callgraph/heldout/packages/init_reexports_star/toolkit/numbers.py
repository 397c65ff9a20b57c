def round_half_up(value, digits=0):
    factor = 10 ** digits
    return int(value * factor + 0.5) / factor


def percent(part, whole):
    return round_half_up(100 * part / whole, 1)


def _private_helper():
    return 0
