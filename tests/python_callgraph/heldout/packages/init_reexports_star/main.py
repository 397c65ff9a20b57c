import toolkit
from toolkit import percent, slugify


def product_page(name, price, sold, stock):
    return {
        "slug": slugify(name),
        "title": toolkit.truncate(name, 12),
        "price": toolkit.round_price(price, 2),
        "sold": percent(sold, stock),
        "since": toolkit.dates.iso_day(2024, 1, 5),
    }


if __name__ == "__main__":
    product_page("Deluxe Coffee Grinder", 49.995, 3, 40)
