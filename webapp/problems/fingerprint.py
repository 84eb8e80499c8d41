"""The fingerprint that groups findings into problems.

What went wrong where, never the values.

A fingerprint is tool, kind, stage pair, the two normalised JSON paths and the transform (for a
schema violation: stage, normalised path and keyword). Severity, values and the contract version
stay out, so a deploy or another customer's data never splits a problem.
"""

import hashlib
import re
from functools import lru_cache
from itertools import islice

from ..analysis import split_request_path
from ..common.digits import is_digits
from ..common.pointers import unescape
from ..common.stages import pair_key
from .transforms import derive_transform

# 2: a path is read against its document, so an object key made of digits is {id}, not an array
# index's *
VERSION = 2
# how v1 read paths: without their documents
FIRST_VERSION = 1
_NO_DOC = object()
ID = "{id}"
SCHEMA_KIND = "schema_violation"
# Which stage pair a one-ended finding belongs to.
_ONE_ENDED = {"dropped": "arguments>request", "added": "arguments>request"}
_UUID = re.compile(
    r"[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}\Z"
)
_LONG_HEX = re.compile(r"(?=.*\d)[0-9a-fA-F]{12,}\Z")
_DIGIT_RUN = re.compile(r"\d{4,}")


def normalise_segment(segment: str) -> str:
    """Return a path segment with indexes as `*` and id-like keys as `{id}`.

    No document tells them apart."""
    if segment.isdigit() or segment == "*":
        return "*"
    return ID if _id_like(segment) else segment


def looks_like_id(key: str) -> bool:
    """Tell whether a key is an id (a UUID, a long hex run, four digits in a row)."""
    # the digits first, and the hex patterns only for a key as long as their shortest match
    return bool(
        _DIGIT_RUN.search(key) or len(key) >= 12 and (_UUID.match(key) or _LONG_HEX.match(key))
    )


# keys repeat across calls: field names, a few ids
_id_like = lru_cache(maxsize=8192)(looks_like_id)


def normalise_path(path: str | None, doc=_NO_DOC) -> str | None:
    """Return a JSON Pointer with every segment normalised.

    `/items/3/id` -> `/items/*/id`.

    With the document the path is in, an index of an array becomes `*` and an object key made of
    digits `{id}` (a map keyed by account numbers is one place, not an array); without it, a segment
    of digits reads as an index.
    """
    if path is None:
        return None
    if path == "":
        return ""
    location, pointer = split_request_path(path)
    # `query:/page_size`: the pointer inside its location, read without a document
    if location != "body":
        return f"{location}:{normalise_path(pointer) if pointer else ''}"
    node, out = doc, []
    for part in path[1:].split("/"):
        if isinstance(node, list):
            out.append("*")
            node = (
                node[int(part)]
                if is_digits(part) and int(part) < len(node)
                else node[0]
                if node
                else _NO_DOC
            )
        elif isinstance(node, dict):
            # a folded `*` over an object of id-like keys is that map's {id}; over named keys it
            # stays *
            name = unescape(part)
            keys = list(islice(node, 100)) if part == "*" else [name]
            out.append(
                ID
                if keys and all(k.isdigit() or _id_like(k) for k in keys)
                else normalise_segment(part)
            )
            node = next(iter(node.values()), _NO_DOC) if part == "*" else node.get(name, _NO_DOC)
        else:
            out.append(normalise_segment(part))
            node = _NO_DOC
    return "/" + "/".join(out)


def stage_pair(kind: str, left: dict | None, right: dict | None) -> str:
    """Return `arguments>request`, `request>response`, ... or a lone stage.

    A lone stage for a one-stage finding."""
    if left and right:
        return pair_key(left["snapshot"], right["snapshot"])
    if kind in _ONE_ENDED:
        # a field the result left out of the response's error envelope belongs to the way back
        return "response>result" if (left or {}).get("snapshot") == "response" else _ONE_ENDED[kind]
    return (left or right or {}).get("snapshot", "")


def _end(where: dict | None, docs: dict | None) -> dict | None:
    if not where:
        return None
    doc = _NO_DOC if docs is None else docs.get(where["snapshot"], _NO_DOC)
    return {"snapshot": where["snapshot"], "path": normalise_path(where.get("path"), doc)}


def describe_finding(tool: str | None, finding: dict, docs: dict | None = None) -> dict | None:
    """Return the grouping descriptor of a warning or error finding.

    None for info (no problem).

    `docs` ({snapshot: payload}) lets paths be read against their documents (fingerprint v2); None
    reads them as v1 did."""
    if finding.get("severity") not in ("warning", "error"):
        return None
    kind = finding["kind"]
    left, right = _end(finding.get("left"), docs), _end(finding.get("right"), docs)
    transform = finding.get("transform")
    if transform is None:
        transform = derive_transform(kind, finding)
    return {
        "tool": tool,
        "kind": kind,
        "stages": stage_pair(kind, left, right),
        "left": left,
        "right": right,
        "transform": transform,
        "keyword": None,
    }


def describe_violation(tool: str | None, stage: str, error: dict, docs: dict | None = None) -> dict:
    """Return the grouping descriptor of one schema violation.

    Stage, normalised path, keyword."""
    doc = _NO_DOC if docs is None else docs.get(stage, _NO_DOC)
    where = {"snapshot": stage, "path": normalise_path(error.get("path") or "", doc)}
    return {
        "tool": tool,
        "kind": SCHEMA_KIND,
        "stages": stage,
        "left": where if stage == "arguments" else None,
        "right": None if stage == "arguments" else where,
        "transform": None,
        "keyword": error.get("keyword") or "",
    }


def key(descriptor: dict, version: int = VERSION) -> str:
    """Return the versioned fingerprint of a descriptor.

    `v2:` and a short hash of its parts."""
    left, right = descriptor["left"] or {}, descriptor["right"] or {}
    parts = [
        descriptor["tool"] or "",
        descriptor["kind"],
        descriptor["stages"],
        left.get("snapshot", ""),
        left.get("path") or "",
        right.get("snapshot", ""),
        right.get("path") or "",
        descriptor["transform"] or "",
        descriptor["keyword"] or "",
    ]
    digest = hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:24]
    return f"v{version}:{digest}"


def grouped_by(descriptor: dict, text=str) -> str:
    """Say in words what a problem's findings share.

    The problem page's "grouped by ..."; `text` writes what came from payloads (tool, paths,
    transform, keyword), e.g. as Markdown text."""
    parts = [
        f"tool {text(descriptor['tool']) if descriptor['tool'] else '(none)'}",
        f"kind {descriptor['kind']}",
        f"stages {descriptor['stages']}",
    ]
    for side in ("left", "right"):
        if descriptor[side]:
            parts.append(
                f"{descriptor[side]['snapshot']} path {text(descriptor[side]['path'] or '/')}"
            )
    if descriptor.get("transform"):
        parts.append(f"transform {text(descriptor['transform'])}")
    if descriptor.get("keyword"):
        parts.append(f"schema keyword {text(descriptor['keyword'])}")
    version = descriptor.get("fingerprint_version", VERSION)
    note = (
        ""
        if version == VERSION
        else f"; made before fingerprint v{VERSION}, which groups only newer findings"
    )
    return (
        f"grouped by {', '.join(parts)} (fingerprint v{version}{note}; array indexes read as *, "
        "id-like keys "
        f"as {ID}; values, severity and contract version are left out)"
    )
