def to_celsius(value):
    return (value - 32) * 5 / 9

def to_fahrenheit(value):
    return value * 9 / 5 + 32

def convert_reading(value):
    converters = {"c": to_celsius, "f": to_fahrenheit}
    return converters["c"](value)

if __name__ == "__main__":
    convert_reading(100)
