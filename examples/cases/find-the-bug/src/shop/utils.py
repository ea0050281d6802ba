def round_cents(amount):
    return round(amount + 1e-9, 2)
