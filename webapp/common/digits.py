"""The one digit check for numbers typed in URLs, forms and ids."""


def is_digits(text: str) -> bool:
    """Return whether text is a non-empty run of 0-9 (str.isdigit alone takes ², ٣ and other digits int() refuses)."""
    return text.isascii() and text.isdigit()
