from shop.billing import total_with_tax


def invoice_line(label, net):
    return f"{label}: {total_with_tax(net):.2f}"
