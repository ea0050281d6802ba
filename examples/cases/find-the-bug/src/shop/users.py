def display_name(first, last):
    return f"{first} {last}".strip()
