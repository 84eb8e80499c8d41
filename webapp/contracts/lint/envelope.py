"""Lint's advice on the error envelope.

The default `{code, message, retryable}` is advice for teams that design their own API, checked only
where a contract declares it; `tracediff lint` advises it where it is not.

An agent needs three things of an error to tell a user why and to decide whether to call again: a
code, a message and whether it may be retried. An operation whose error answers declare all three
(at the top of the body or inside its `error` object) is checked against them on every call; one
that declares none, or not all three, is read as services send errors, and lint advises the envelope
in a line of its own (the API is not wrong for it: no mismatch)."""

from ...analysis import is_the_envelope

ENVELOPE = ("code", "message", "retryable")


def lacks_the_envelope(contract: dict) -> bool:
    """Tell whether a contract's error answers lack a full envelope.

    No full envelope of code, message and retryable declared."""
    schema = contract.get("error_schema")
    return not (
        is_the_envelope(schema) or _declares_all(schema) or _declares_all(_error_member(schema))
    )


def _named(schema) -> set:
    properties = schema.get("properties") if isinstance(schema, dict) else None
    return set(properties) if isinstance(properties, dict) else set()


def _declares_all(schema) -> bool:
    return set(ENVELOPE) <= _named(schema)


def _error_member(schema):
    return (schema.get("properties") or {}).get("error") if isinstance(schema, dict) else None
