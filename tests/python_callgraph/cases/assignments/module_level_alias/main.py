def format_price(cents):
    return f"${cents / 100:.2f}"

render_price = format_price

def invoice_line(item, cents):
    return f"{item}: {render_price(cents)}"

if __name__ == "__main__":
    invoice_line("widget", 1250)
