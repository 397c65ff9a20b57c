def charge_card(gateway, amount):
    return gateway.post("/charges", {"amount": amount})
