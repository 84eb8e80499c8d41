"""How one value relates to another: equal, or the same meaning written another way."""
from ..analysis.classify import classify
from ..analysis.readings import power_of_ten, read_dates, read_number, read_truth
from ..analysis.values import canonical, is_number, norm_text

EQUAL = "equal"
TRANSFORMS = ("type_changed", "enum_changed", "format_changed", "scaled")


def relation(a, b) -> str | None:
    """Name how `a` became `b`: "equal", a transform ("scaled x100", "type_changed"...), or None."""
    try:
        found = classify(a, b)
    except (RecursionError, ValueError, OverflowError):
        return None
    if found is None:
        return EQUAL
    kind = found[0]
    if kind == "scaled":
        return f"scaled {_factor(a, b)}"
    return kind if kind in TRANSFORMS else None


def _factor(a, b) -> str:
    x = a if is_number(a) else read_number(str(a))
    y = b if is_number(b) else read_number(str(b))
    k = power_of_ten(x, y) if x is not None and y is not None else None
    return "?" if k is None else (f"x{10 ** k}" if k > 0 else f"/{10 ** -k}")


def keys(value) -> set:
    """Return bucket keys shared by values that may be related, so only those pairs are compared."""
    if isinstance(value, list):
        return {("list", canonical(value))}
    if isinstance(value, bool):
        return {("truth", value)}
    if is_number(value):
        return {("digits", _digits(value))}
    text = str(value)
    found = set()
    number = read_number(text)
    if number is not None:
        found.add(("digits", _digits(number)))
    truth = read_truth(text)
    if truth is not None and not text.strip().isdigit():
        found.add(("truth", truth))
    dates = read_dates(text) if any(c.isdigit() for c in text) else []
    if dates:
        found.add(("date", dates[0][0].date().isoformat()))
    if not found:
        found.add(("text", norm_text(text)))
    return found


def _digits(number) -> str:
    """Return a number's significant digits, so 5, 50, 0.5 and "5" share a bucket (a scale change)."""
    text = repr(float(number)) if not isinstance(number, int) else str(number)
    if "e" in text.lower():
        return text.lower()
    digits = text.replace("-", "").replace(".", "").strip("0")
    return digits or "0"
