"""What `tracediff lint` finds on a real OpenAPI description, and its cost.

What it costs beside reading the operations.

    python bench/lint.py                                       # the excerpt in tests/data
    TRACEDIFF_BENCH_OPENAPI=openapi.json python bench/lint.py  # a whole one (OpenAI's: 3.4 MB)
    python bench/lint.py --quick

A tool is derived per operation (its arguments are the request's body fields and path and query
parameters, tests/lint_tools.py). Noise: the mismatches on those tools, then on the same tools
renamed to camelCase with half their optional arguments left out (neither is a bug). Recall: one bug
planted per tool (an argument the API does not take, a string argument made an integer, an enum in
another case, a required field left out, a bound widened), found when a mismatch of its kind names
its place. Cost: reading the tools list and each operation's request (what `tracediff tools import
--operation` does, the baseline, same run) against that plus the comparison.
"""

import copy
import os
import re
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]

from common import options, ratio_line, write_figures  # noqa: E402
from lint_tools import derived_tools  # noqa: E402

from webapp.contracts import load_file  # noqa: E402
from webapp.contracts.lint import lint_contract, lint_targets  # noqa: E402

EXCERPT = ROOT / "tests" / "data" / "openai-excerpt.json"
EXTRA = "zz_planted_flag"


def camel(key: str) -> str:
    return re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), key)


def varied(tools: list[dict]) -> list[dict]:
    """Return the tools renamed to camelCase, some optional arguments left out.

    Every other optional argument left out."""
    out = copy.deepcopy(tools)
    for definition in out:
        schema = definition["function"]["parameters"]
        if isinstance(schema.get("properties"), dict):
            needed = set(schema.get("required", ()))
            kept = [k for i, k in enumerate(schema["properties"]) if k in needed or i % 2]
            schema["properties"] = {camel(k): schema["properties"][k] for k in kept}
            if needed:
                schema["required"] = [camel(k) for k in needed]
    return out


def narrowed(tools: list[dict]) -> list[dict]:
    """Return the tools asking for less than the API takes.

    Integers for numbers, an enum value fewer, every top-level argument required (what a careful
    engineer writes; no bug)."""
    out = copy.deepcopy(tools)
    for definition in out:
        schema = definition["function"]["parameters"]
        for sub in _schemas(schema):
            if sub.get("type") == "number":
                sub["type"] = "integer"
            if isinstance(sub.get("enum"), list) and len(sub["enum"]) > 2:
                sub["enum"] = sub["enum"][:-1]
        if isinstance(schema.get("properties"), dict) and schema["properties"]:
            schema["required"] = list(schema["properties"])
    return out


def _schemas(node):
    """Yield every schema object below a node.

    Properties' values, items, combinators' members."""
    stack = [node]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            yield node
            for key, value in node.items():
                if key in ("properties", "patternProperties", "$defs"):
                    stack += (
                        [v for v in value.values() if isinstance(v, dict)]
                        if isinstance(value, dict)
                        else []
                    )
                elif key in ("items", "additionalProperties", "not") or key in (
                    "allOf",
                    "anyOf",
                    "oneOf",
                ):
                    stack += value if isinstance(value, list) else [value]


def plant(schema: dict, turn: int) -> tuple | None:
    """Plant one bug in a tool's arguments schema.

    Return (kind, the argument or request field's key)."""
    props, needed = schema.get("properties"), set(schema.get("required", ()))
    if not isinstance(props, dict):
        return None
    plain = [
        k
        for k, v in props.items()
        if isinstance(v, dict) and v.get("type") == "string" and "enum" not in v
    ]
    enums = [k for k, v in props.items() if isinstance(v, dict) and _cased(v.get("enum"))]
    dropped = [
        k
        for k in needed
        if k in props and "default" not in props[k] and len(props[k].get("enum") or "ab") > 1
    ]
    bounded = [
        k
        for k, v in props.items()
        if isinstance(v, dict) and isinstance(v.get("maximum"), (int, float))
    ]
    for kind, keys in [
        ("type_mismatch", plain),
        ("enum_mismatch", enums),
        ("unfilled_field", dropped),
        ("range_mismatch", bounded),
        ("unmapped_argument", [EXTRA]),
    ][turn % 5 :] + [("unmapped_argument", [EXTRA])]:
        if keys:
            key = sorted(keys)[0]
            if kind == "type_mismatch":
                props[key] = {"type": "integer"}
            elif kind == "enum_mismatch":
                props[key]["enum"] = [_flipped(v) for v in props[key]["enum"]]
            elif kind == "unfilled_field":
                del props[key]
                schema["required"] = [k for k in schema["required"] if k != key]
            elif kind == "range_mismatch":
                props[key]["maximum"] = props[key]["maximum"] * 10 + 1
            else:
                props[key] = {"type": "boolean"}
            return kind, key
    return None


def _flipped(value):
    """Return a text in the other case (UPPER for lower, lower for UPPER).

    Any other value as it is."""
    if not isinstance(value, str):
        return value
    return value.upper() if value != value.upper() else value.lower()


def _cased(values) -> bool:
    return isinstance(values, list) and any(
        isinstance(v, str) and v.upper() != v.lower() for v in values
    )


def lint_all(tools, openapi) -> tuple[dict, float, float]:
    """Return {tool: mismatches}.

    The seconds reading the targets took, and the seconds the comparison took."""
    start = time.perf_counter()
    targets = lint_targets(tools, openapi)
    read = time.perf_counter()
    found = {t.tool: lint_contract(t.contract) for t in targets if t.contract is not None}
    return found, read - start, time.perf_counter() - read


def main() -> None:
    args = options(__doc__.splitlines()[0], 0)
    path = os.environ.get("TRACEDIFF_BENCH_OPENAPI") or EXCERPT
    start = time.perf_counter()
    openapi = load_file(path)
    loaded = time.perf_counter() - start
    tools = derived_tools(openapi)
    if args.quick:
        tools = tools[:3]
    found, read, compared = lint_all(tools, openapi)
    noise = sum(len(v) for v in found.values())
    renamed, _, _ = lint_all(varied(tools), openapi)
    renamed_noise = sum(f["severity"] != "info" for v in renamed.values() for f in v)
    narrow, _, _ = lint_all(narrowed(tools), openapi)
    narrow_noise = sum(f["severity"] != "info" for v in narrow.values() for f in v)
    planted_tools = copy.deepcopy(tools)
    planted = {}
    for turn, definition in enumerate(planted_tools):
        bug = plant(definition["function"]["parameters"], turn)
        if bug:
            planted[definition["function"]["name"]] = bug
    hit, extra = lint_all(planted_tools, openapi)[0], 0
    caught = Counter()
    for name, (kind, key) in planted.items():
        places = {
            (f["kind"], (f["left"] or f["right"])["path"].rsplit("/", 1)[-1]) for f in hit[name]
        }
        caught[kind, (kind, key) in places] += 1
        extra += sum(f["severity"] != "info" and f["kind"] != kind for f in hit[name])
    found_count = sum(n for (_, ok), n in caught.items() if ok)
    print(
        f"{Path(path).name}: {len(tools)} tools, loaded in {loaded:.2f} s; read {read:.2f} s, "
        f"compared {compared:.2f} s"
    )
    print(
        f"noise: {noise} mismatches on the derived tools; {renamed_noise} warnings or errors "
        "renamed and trimmed; "
        f"{narrow_noise} narrowed"
    )
    print(
        f"recall: {found_count} of {len(planted)} planted bugs found at their place; {extra} other "
        "warnings or errors"
    )
    for (kind, ok), n in sorted(caught.items()):
        print(f"  {kind}: {n} {'found' if ok else 'MISSED'}")
    print(ratio_line("lint / reading the operations", read + compared, read, "< 2"))
    figures = {
        "tools": len(tools),
        "noise": noise,
        "renamed_noise": renamed_noise,
        "narrowed_noise": narrow_noise,
        "planted": len(planted),
        "found": found_count,
        "other_loud": extra,
        "loaded_s": loaded,
        "read_s": read,
        "compared_s": compared,
    }
    write_figures("lint", figures, args.quick)


if __name__ == "__main__":
    main()
