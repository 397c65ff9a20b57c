TAX_RATES = {"uk": 0.2, "de": 0.19}


def tax_rate(country):
    return TAX_RATES.get(country, 0.0)
