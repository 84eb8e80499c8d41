"""The catastrophic patterns of the OWASP ReDoS list, each with its value.

"Regular expression Denial of Service": each with a value of 30 to 50 characters that makes a
backtracking engine try every way to split it (Python's `re` takes hours)."""

EMAIL = (
    r"^([a-zA-Z0-9])(([\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}"
    r"(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$"
)
# (name, pattern, a value it refuses only after a backtracking engine tried every split)
EVIL = [
    ("nested_plus", r"^(a+)+$", "a" * 40 + "!"),
    ("letters_star", r"^([a-zA-Z]+)*$", "a" * 42 + "1"),
    ("a_or_aa", r"^(a|aa)+$", "a" * 48 + "!"),
    ("a_or_optional_a", r"^(a|a?)+$", "a" * 30 + "!"),
    ("dot_star_a_times_12", r"^(.*a){12}$", "a" * 36 + "!"),
    ("java_class_name", r"^(([a-z])+.)+[A-Z]([a-z])+$", "a" * 44 + "!"),
    ("email", EMAIL, "a" * 40 + "!"),
]
# Patterns no linear-time engine runs (a backreference, lookarounds): skipped and told, never run
UNRUNNABLE = [
    ("backreference", r"^(\w+\s?)*\1$", "a" * 40 + "!"),
    ("lookahead", r"^(?=(a+)+$)b", "a" * 40 + "!"),
    ("lookbehind", r"(?<!x)(a+)+$", "a" * 40 + "!"),
]
BENIGN = ("benign", r"^[a-z]+$", "a" * 40 + "!")


def contract_with(pattern: str) -> dict:
    """Return a contract whose arguments hold the pattern three ways: on a value, on array items
    and as a `patternProperties` key beside `additionalProperties: false`."""
    text = {"type": "string", "pattern": pattern}
    labels = {
        "type": "object",
        "patternProperties": {pattern: {"type": "string"}},
        "additionalProperties": False,
    }
    properties = {"q": text, "tags": {"type": "array", "items": text}, "labels": labels}
    return {"arguments_schema": {"type": "object", "properties": properties}}


def arguments_with(value: str) -> dict:
    """Return arguments that trigger the pattern in each place contract_with puts it."""
    return {"q": value, "tags": [value, value], "labels": {value: "x"}}
