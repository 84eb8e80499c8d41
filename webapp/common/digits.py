"""The one digit check for numbers typed in URLs, forms and ids."""


def is_digits(text: str) -> bool:
    """Return whether text is a non-empty run of 0-9.

    str.isdigit alone takes ², ٣ and other digits int() refuses."""
    return text.isascii() and text.isdigit()


def problem_number(text: str | None) -> int | None:
    """Return the number of a problem id, or None when it is not one.

    `TD-42`, `td-42` or `42`."""
    number = (text or "").strip().upper().removeprefix("TD-")
    return int(number) if is_digits(number) and len(number) <= 18 else None
