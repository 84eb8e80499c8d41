"""Big argument/request pairs that differ in a few fields, and their contract.

Of a chosen size."""

import copy
import random

import orjson

ENTRY_SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "title": {"type": "string"},
        "body": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "created_at": {"type": "string"},
        "score": {"type": "number"},
        "done": {"type": "boolean"},
        "author": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "email": {"type": "string"}},
        },
    },
    "required": ["id", "title", "body"],
}
DOC_SCHEMA = {
    "type": "object",
    "properties": {
        "notebook": {"type": "string"},
        "entries": {"type": "array", "items": ENTRY_SCHEMA},
    },
    "required": ["notebook", "entries"],
}
WORDS = (
    "invoice",
    "order",
    "refund",
    "customer",
    "shipment",
    "priority",
    "ledger",
    "quarter",
    "budget",
    "review",
    "draft",
    "meeting",
    "agent",
    "schema",
    "mapping",
    "response",
)


def _entry(rng: random.Random, number: int) -> dict:
    return {
        "id": f"ent_{number:07d}",
        "title": " ".join(rng.choices(WORDS, k=4)),
        "body": " ".join(rng.choices(WORDS, k=28)),
        "tags": rng.sample(WORDS, 3),
        "created_at": f"2026-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}T10:00:00Z",
        "score": round(rng.random() * 100, 2),
        "done": rng.random() < 0.5,
        "author": {"name": "Dana Whitfield", "email": "dana.whitfield@example.com"},
    }


def document(size: int, seed: int = 11) -> dict:
    """Return a notebook document whose compact JSON is about `size` bytes."""
    rng = random.Random(seed)
    per_entry = len(orjson.dumps(_entry(random.Random(0), 0))) + 1
    return {
        "notebook": "nb_42",
        "entries": [_entry(rng, n) for n in range(max(1, size // per_entry))],
    }


def mapped(doc: dict) -> dict:
    """Return the request the mapping layer built.

    The document with a few fields broken."""
    out = copy.deepcopy(doc)
    entries = out["entries"]
    for index in {0, len(entries) // 2, len(entries) - 1}:
        # type_changed
        entries[index]["score"] = str(entries[index]["score"])
    last = entries[len(entries) // 3]
    # renamed
    last["createdAt"] = last.pop("created_at")
    # dropped
    entries[len(entries) // 4].pop("tags")
    return out


def call(size: int) -> tuple[dict, dict]:
    """Return (snapshots, contract) of a call of about `size` bytes a side.

    Its arguments and request are about `size` bytes each."""
    arguments = document(size)
    snapshots = {
        "arguments": {"payload": arguments, "logged_as_string": False, "http": None},
        "request": {
            "payload": mapped(arguments),
            "logged_as_string": False,
            "http": {"method": "POST", "url": "https://api.example.com/v1/notebooks"},
        },
        "response": {
            "payload": {"id": "nb_42", "saved": len(arguments["entries"])},
            "logged_as_string": False,
            "http": {"status_code": 200},
        },
    }
    contract = {
        "name": "saveNotebook",
        "arguments_schema": DOC_SCHEMA,
        "request_schema": DOC_SCHEMA,
        "response_schema": {
            "type": "object",
            "properties": {"id": {"type": "string"}, "saved": {"type": "integer"}},
        },
    }
    return snapshots, contract
