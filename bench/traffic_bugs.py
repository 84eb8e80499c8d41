"""Mapping bugs planted into a correct request.

One function per kind, each names the paths it broke."""

import re

from webapp.common.pointers import MISSING, parent, resolve, tokens

_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")


def _present(tool, args, request):
    """The mapped fields this call carries.

    (argument path, request path, request value) of each."""
    out = []
    for arg_path, req_path in tool.fields:
        value = resolve(request, req_path, MISSING)
        if resolve(args, arg_path, MISSING) is not MISSING and value is not MISSING:
            out.append((arg_path, req_path, value))
    return out


def _put(request, path, value):
    holder = resolve(request, parent(path))
    holder[tokens(path)[-1]] = value


def _pick(rng, fields, wanted):
    chosen = [f for f in fields if wanted(f[2])]
    return rng.choice(chosen) if chosen else None


def _number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _one_field(wanted, change):
    """A bug that changes one mapped field's value with `change`."""

    def bug(tool, args, request, rng):
        field = _pick(rng, _present(tool, args, request), wanted)
        if field is None:
            return None
        _put(request, field[1], change(field[2], rng))
        return [field]

    return bug


def _swap(tool, args, request, rng):
    fields = [f for f in _present(tool, args, request) if not isinstance(f[2], (dict, list))]
    pairs = [
        (a, b)
        for i, a in enumerate(fields)
        for b in fields[i + 1 :]
        if type(a[2]) is type(b[2]) and a[2] != b[2]
    ]
    if not pairs:
        return None
    a, b = rng.choice(pairs)
    _put(request, a[1], b[2])
    _put(request, b[1], a[2])
    return [a, b]


def _wrong_source(tool, args, request, rng):
    """Copy-paste: a field filled from another argument of the same type."""
    fields = [f for f in _present(tool, args, request) if not isinstance(f[2], (dict, list))]
    pairs = [
        (a, b)
        for a in fields
        for b in fields
        if a is not b and type(a[2]) is type(b[2]) and a[2] != b[2]
    ]
    if not pairs:
        return None
    a, b = rng.choice(pairs)
    _put(request, a[1], b[2])
    return [a]


def _dropped(tool, args, request, rng):
    field = _pick(rng, _present(tool, args, request), lambda v: True)
    if field is None:
        return None
    del resolve(request, parent(field[1]))[tokens(field[1])[-1]]
    return [field]


def _leak(tool, args, request, rng):
    key = rng.choice(["internal_user_id", "debugTrace", "x_session"])
    request[key] = rng.choice(["usr_8842", "a1b2c3", "sess_19"])
    return [(None, "/" + key, None)]


def _truncate(tool, args, request, rng):
    field = _pick(rng, _present(tool, args, request), lambda v: isinstance(v, list) and len(v) >= 2)
    if field is None:
        return None
    field[2].pop()
    return [field]


def _replace_item(tool, args, request, rng):
    field = _pick(rng, _present(tool, args, request), lambda v: isinstance(v, list) and v)
    if field is None:
        return None
    items = field[2]
    if isinstance(items[0], dict):
        items[-1] = (
            {**items[-1], "productCode": "oat-milk"} if "productCode" in items[-1] else items[-1]
        )
    else:
        items[-1] = "zz_" + str(items[-1])
    return [field]


def _date(value, rng):
    y, m, d = _DATE.match(value).groups()
    return f"{d}/{m}/{y}"


BUGS = {
    "off_by_one": _one_field(_number, lambda v, rng: v + 1),
    "swapped_values": _swap,
    "wrong_source": _wrong_source,
    "integer_as_string": _one_field(_number, lambda v, rng: str(v)),
    "boolean_as_string": _one_field(
        lambda v: isinstance(v, bool), lambda v, rng: "true" if v else "false"
    ),
    "boolean_flipped": _one_field(lambda v: isinstance(v, bool), lambda v, rng: not v),
    "enum_case": _one_field(
        lambda v: isinstance(v, str) and v.isalpha() and v.islower(), lambda v, rng: v.upper()
    ),
    "date_format": _one_field(lambda v: isinstance(v, str) and bool(_DATE.match(v)), _date),
    "scaled": _one_field(lambda v: _number(v) and v, lambda v, rng: v * 100),
    "dropped": _dropped,
    "leaked_field": _leak,
    "list_truncated": _truncate,
    "list_item_replaced": _replace_item,
}


def plant(kind: str, tool, args: dict, request: dict, rng):
    """Plant one bug of `kind` into `request`.

    Return {kind, arguments, request} paths, or None."""
    before = repr(request)
    broken = BUGS[kind](tool, args, request, rng)
    if not broken or repr(request) == before:
        return None
    first = broken[0]
    return {
        "kind": kind,
        "arguments": first[0],
        "request": first[1],
        "also": [(b[0], b[1]) for b in broken[1:]],
    }
