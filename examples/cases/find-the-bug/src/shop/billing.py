from shop.utils import round_cents

TAX_RATE = 0.2


def total_with_tax(net):
    """The gross amount: net plus tax, rounded to cents."""
    return round_cents(net * TAX_RATE)
