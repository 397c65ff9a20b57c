def iso_day(year, month, day):
    return f"{year:04d}-{month:02d}-{day:02d}"
