"""The shape corpus.

Payload shapes that real traffic and incidents produce, at any size.

Each shape is a function of a size in bytes (about the compact JSON of the bigger side) that
returns (snapshots, contract). `bench/shapes.py` times them; `tests/test_shapes.py` feeds them,
small, through the whole path.
"""

import copy
import random

import orjson
from payloads import call as friendly_call

STATUSES = ("paid", "pending", "refunded", "failed", "shipped")


def _snaps(arguments, request, response=None, status=200) -> dict:
    snaps = {
        "arguments": {"payload": arguments, "logged_as_string": False, "http": None},
        "request": {
            "payload": request,
            "logged_as_string": False,
            "http": {"method": "POST", "url": "https://api.example.com/v1/things"},
        },
    }
    if response is not None:
        snaps["response"] = {
            "payload": response,
            "logged_as_string": False,
            "http": {"status_code": status},
        }
    return snaps


def _count(size: int, one) -> int:
    return max(2, size // (len(orjson.dumps(one)) + 1))


def _record(n: int) -> dict:
    return {
        "order_id": f"ord_{n:07d}",
        "status": STATUSES[n % 5],
        "amount": 1000 + n % 977,
        "created_at": f"2026-{n % 12 + 1:02d}-{n % 28 + 1:02d}T10:{n % 60:02d}:00Z",
        "customer": {"name": f"Customer {n % 313}", "email": f"c{n % 313}@example.com"},
    }


def _records(size: int) -> list[dict]:
    return [_record(n) for n in range(_count(size, _record(0)))]


def _each(records: list[dict], field: str, change) -> list[dict]:
    out = copy.deepcopy(records)
    for record in out:
        record[field] = change(record[field])
    return out


def _date(text: str) -> str:
    return f"{text[8:10]}/{text[5:7]}/{text[:4]} {text[11:19]}"


def records_enum(size):
    rows = _records(size)
    return _snaps({"orders": rows}, {"orders": _each(rows, "status", str.upper)}), None


def records_number_string(size):
    rows = _records(size)
    return _snaps({"orders": rows}, {"orders": _each(rows, "amount", str)}), None


def records_date_format(size):
    rows = _records(size)
    return _snaps({"orders": rows}, {"orders": _each(rows, "created_at", _date)}), None


def records_scaled(size):
    rows = _records(size)
    return _snaps({"orders": rows}, {"orders": _each(rows, "amount", lambda a: a * 100)}), None


def strings_all_changed(size):
    tags = [f"tag-{n}" for n in range(_count(size, "tag-100000"))]
    return _snaps({"tags": tags}, {"tags": [t.upper() for t in tags]}), None


def numbers_all_changed(size):
    numbers = [1000 + n for n in range(_count(size, 123456))]
    return _snaps({"values": numbers}, {"values": [str(n) for n in numbers]}), None


def numbers_insert_front(size):
    numbers = [1000 + n for n in range(_count(size, 123456))]
    return _snaps({"values": numbers}, {"values": [7, *numbers]}), None


def records_remove_front(size):
    rows = _records(size)
    # no id to pair by
    plain = [{k: v for k, v in r.items() if k != "order_id"} for r in rows]
    return _snaps({"orders": plain}, {"orders": plain[1:]}), None


def records_reordered(size):
    rows = _records(size)
    shuffled = rows[:]
    random.Random(5).shuffle(shuffled)
    return _snaps({"orders": rows}, {"orders": shuffled}), None


def keys_case_converted(size):
    keys = [
        f"fieldNumber{n}Value" for n in range(_count(size, {"fieldNumber10000Value": "v10000"}))
    ]
    args = {k: f"v{n}" for n, k in enumerate(keys)}
    request = {f"field_number{n}_value": f"v{n}" for n in range(len(keys))}
    return _snaps(args, request), None


def keys_renamed(size):
    count = _count(size, {"attr_10000": "value 10000"})
    args = {f"attr_{n}": f"value {n}" for n in range(count)}
    return _snaps(args, {f"x{n}": f"value {n}" for n in range(count)}), None


def tiny_args_huge_request(size):
    return _snaps({"limit": 5}, {"limit": 5, "catalog": _records(size)}), None


def unrelated_huge_request(size):
    return _snaps({"limit": 5}, {"page_size": "5", "catalog": _records(size)}), None


def huge_args_tiny_request(size):
    return _snaps({"limit": 5, "catalog": _records(size)}, {"limit": "5"}), None


def echo_with_changes(size):
    rows = _records(size // 2)
    echoed = copy.deepcopy(rows)
    for record in echoed[::3]:
        record["status"] = record["status"].upper()
    return _snaps({"orders": rows}, {"orders": rows}, {"saved": True, "orders": echoed}), None


def deep_nesting(size, depth=60):
    def chain(n):
        node = {"leaf": n, "name": f"node {n}"}
        for level in range(depth):
            node = {f"k{level % 3}": node}
        return node

    count = _count(size, chain(1000))
    left = [chain(n) for n in range(count)]
    right = copy.deepcopy(left)
    for item in right:
        node = item
        while "leaf" not in node:
            node = next(iter(node.values()))
        node["leaf"] = str(node["leaf"])
    return _snaps({"trees": left}, {"trees": right}), None


def one_huge_string(size):
    text = "".join(random.Random(3).choices("abcdefghij \n", k=size))
    return _snaps({"text": text}, {"text": text[: size // 2] + "X" + text[size // 2 + 1 :]}), None


def identical_records(size):
    one = {"kind": "line", "qty": 1, "price": 10, "currency": "eur", "active": True, "note": ""}
    rows = [dict(one) for _ in range(_count(size, one))]
    return _snaps({"lines": rows}, {"lines": [dict(r, currency="EUR") for r in rows]}), None


def unicode_long_keys(size):
    def key(n):
        return f"ключ_{n}_" + "ü字" * 200

    count = _count(size, {key(10000): "значение 10000"})
    args = {key(n): f"значение {n}" for n in range(count)}
    return _snaps(args, {key(n).upper(): f"значение {n}" for n in range(count)}), None


def records_renamed_field(size):
    rows = _records(size)
    renamed = [{("total" if k == "amount" else k): v for k, v in r.items()} for r in rows]
    return _snaps({"orders": rows}, {"orders": renamed}), None


def duplicate_leftovers(size):
    """Many dropped and added fields holding the same few values.

    Groups that hurt value pairing."""
    count = _count(size, {"opt_10000": True})
    args = {f"opt_{n}": n % 2 == 0 for n in range(count)}
    return _snaps(args, {f"flag_{n}": n % 3 == 0 for n in range(count)}), None


def records_lists_changed(size):
    """Records each holding a short list whose every item the layer changed.

    One folded finding per record: a fold per array that looked at every finding was quadratic."""
    rows = [{**r, "tags": [f"tag-{n}-{k}" for k in range(3)]} for n, r in enumerate(_records(size))]
    # the records' own size set their count: shrink it back to about `size`
    rows = rows[: max(2, size // len(orjson.dumps(rows[0])))]
    upper = _each(rows, "tags", lambda tags: [t.upper() for t in tags])
    return _snaps({"orders": rows}, {"orders": upper}), None


def friendly(size):
    return friendly_call(size)


SHAPES = {
    f.__name__: f
    for f in (
        friendly,
        records_enum,
        records_number_string,
        records_date_format,
        records_scaled,
        strings_all_changed,
        numbers_all_changed,
        numbers_insert_front,
        records_remove_front,
        records_reordered,
        keys_case_converted,
        keys_renamed,
        tiny_args_huge_request,
        unrelated_huge_request,
        huge_args_tiny_request,
        echo_with_changes,
        deep_nesting,
        one_huge_string,
        identical_records,
        unicode_long_keys,
        records_renamed_field,
        duplicate_leftovers,
        records_lists_changed,
    )
}


def payload_bytes(snapshots: dict) -> int:
    """Return the compact JSON size of the call's snapshots together."""
    return sum(len(orjson.dumps(s["payload"])) for s in snapshots.values() if s)
