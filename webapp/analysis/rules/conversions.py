"""Conversions that are part of the mapping.

A declared transform, or the units a pair's names carry.

A conversion the mapping expects is quiet when the values follow it (`amount` 12.5 -> `amount_cents`
1250) and loud when they do not, equal values included (`amount` 10 -> `amount_cents` 10 forgot the
x100).
"""

from ...common.pointers import ancestors, last
from ..findings.kinds import end, finding
from ..values.json_values import show, type_name
from ..values.units import expected_factors, factor_name, follows, number, scale_of
from ..wire.locations import in_text

_STYLES = ("camelCase", "snake_case", "kebab-case", "PascalCase")


def declared_transform(pairing, path: str):
    """Return the transform the mapping entry of `path` declares, else None.

    The entry may be an ancestor's."""
    # the common case: no mapping entry declares one
    if not pairing.transforms:
        return None
    for up in (path, *ancestors(path)):
        if up in pairing.transforms:
            return pairing.transforms[up]
    return None


def expected(pairing, left_path: str, right_path: str) -> tuple[tuple[float, ...], str] | None:
    """Return (factors, why) of the scale a pair must show.

    From a declared transform or the units in its names."""
    declared = declared_transform(pairing, left_path)
    if declared is not None:
        factor = scale_of(declared)
        return ((factor,), "declared transform") if factor else None
    factors = expected_factors(left_path, right_path)
    if factors is None or factors == (1.0,):
        return None
    return factors, f"units in the names: {last(left_path)} -> {last(right_path)}"


def quiet_conversion(f: dict, pairing) -> bool:
    """Lower a finding that follows its pair's expected conversion; say if so.

    It becomes info, kind `scaled`."""
    left, right = f["left"], f["right"]
    if (
        not left
        or not right
        or f["kind"] not in ("scaled", "value_changed", "type_changed", "format_changed")
    ):
        return False
    found = expected(pairing, left["path"], right["path"])
    if found is None:
        return False
    factors, why = found
    a, b = f.get("left_value"), f.get("right_value")
    for factor in factors:
        if factor != 1 and follows(a, b, factor):
            f["kind"], f["severity"], f["transform"] = "scaled", "info", factor_name(factor)
            f["message"] += f" ({why})"
            return True
    return False


def unconverted(pairing) -> list[dict]:
    """Warn per pair whose values are equal where the mapping expects a conversion.

    In a query string or a form, where every number travels as text, the same number as text counts
    as equal."""
    out = []
    pairs = [
        (lp, pairing.pairs[lp], *pairing.values[lp], True)
        for lp in pairing.whole
        if pairing.how.get(lp) not in (None, "same", "item") and lp in pairing.values
    ]
    pairs += [
        (lp, rp, lv, rv, False)
        # as text: only a scale is missed
        for lp, rp, lv, rv in pairing.diffs
        if in_text(rp)
        and isinstance(rv, str)
        and number(lv) is not None
        and number(lv) == number(rv)
    ]
    for lp, rp, lv, rv, equal in pairs:
        why = _missed(pairing, lp, rp, lv, equal)
        if why:
            out.append(
                finding(
                    "value_changed",
                    "warning",
                    end("arguments", lp),
                    end("request", rp),
                    lv,
                    rv,
                    f"{_label(lp, rp)}: {show(lv)} sent unconverted ({why})",
                )
            )
    return out


def _missed(pairing, lp, rp, value, equal: bool = True) -> str | None:
    """Say which expected conversion an unchanged value misses.

    None when it needs none."""
    declared = declared_transform(pairing, lp)
    if declared is not None and scale_of(declared) is None:
        return (
            f"declared transform {declared}" if equal and _would_change(declared, value) else None
        )
    found = expected(pairing, lp, rp)
    if found is None or number(value) in (None, 0) or 1.0 in found[0]:
        return None
    factors, why = found
    return f"{' or '.join(factor_name(x) for x in factors)} expected: {why}"


def _would_change(transform: str, value) -> bool:
    """Tell whether a declared non-scale transform changes this value.

    Such as "integer>string", "lower>UPPER"."""
    before, _, after = transform.partition(">")
    if not after or before in _STYLES:
        # a key-style conversion: about keys, not values
        return False
    if before == "lower" and after == "UPPER":
        return isinstance(value, str) and value != value.upper()
    if before == "UPPER" and after == "lower":
        return isinstance(value, str) and value != value.lower()
    name = "list" if type_name(value) == "array" else type_name(value)
    return (
        name == before
        or (before == "iso8601" and isinstance(value, str))
        or (before == "epoch" and number(value) is not None)
    )


def _label(lp: str, rp: str) -> str:
    return lp[1:] if lp == rp else f"{lp[1:]} -> {rp[1:]}"
