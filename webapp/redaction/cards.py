"""Payment card numbers.

The issuer ranges and the Luhn checksum that tell one from any long number."""

# (prefix, lengths): issuer ranges keep 13-19 digit ids from matching.
_CARD_PREFIXES = (
    ("4", (13, 16, 19)),
    ("34", (15,)),
    ("37", (15,)),
    ("51", (16,)),
    ("52", (16,)),
    ("53", (16,)),
    ("54", (16,)),
    ("55", (16,)),
    ("22", (16,)),
    ("23", (16,)),
    ("24", (16,)),
    ("25", (16,)),
    ("26", (16,)),
    ("27", (16,)),
    ("6011", (16, 17, 18, 19)),
    ("64", (16, 17, 18, 19)),
    ("65", (16, 17, 18, 19)),
    ("62", (16, 17, 18, 19)),
    ("35", (16, 17, 18, 19)),
    ("30", (14, 15, 16, 17, 18, 19)),
    ("36", (14, 15, 16, 17, 18, 19)),
    ("38", (14, 15, 16, 17, 18, 19)),
    ("39", (14, 15, 16, 17, 18, 19)),
)


def luhn_ok(digits: str) -> bool:
    """Tell whether a digit string passes the Luhn checksum."""
    total = 0
    for position, char in enumerate(reversed(digits)):
        digit = ord(char) - 48
        if position % 2:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0


def looks_like_card(text: str) -> bool:
    """Tell whether digits form a plausible payment card number.

    Spaces and dashes allowed."""
    digits = text.replace(" ", "").replace("-", "")
    if not (13 <= len(digits) <= 19 and digits.isdigit()):
        return False
    brand = any(
        digits.startswith(prefix) and len(digits) in lengths for prefix, lengths in _CARD_PREFIXES
    )
    return brand and luhn_ok(digits)
