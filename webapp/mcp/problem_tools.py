"""list_problems, get_problem and compare_release.

The problems API and the releases API, bounded (pure over a `Source`)."""

from urllib.parse import parse_qs, urlsplit

from ..reports.problems import ticket_title
from .bounds import MAX_ANSWER_BYTES, VALUE_BYTES, cut_value, first, fit, short, with_cuts
from .source import Source, link

PROBLEM_FIELDS = (
    "id",
    "permalink",
    "tool",
    "kind",
    "severity",
    "state",
    "left",
    "right",
    "transform",
    "first_seen",
    "last_seen",
    "occurrences",
    "calls",
    "traces",
    "releases",
    "sources",
    "links",
    "in_release",
)
# releases, sources or links of one problem named in a list
LISTED = 20
VALUE_PAIRS = 10
HISTORY = 10
# problems answered per side of a comparison
COMPARED = 50


def list_problems(source: Source, args: dict) -> dict:
    """Return problems, most recently seen first, with permalinks."""
    params = {
        name: args.get(name) for name in ("state", "tool", "kind", "release", "since", "cursor")
    }
    page = source.get("/api/v1/problems", {**params, "limit": args.get("limit", 20)})
    answer = fit(
        {
            "problems": [summary(p) for p in page["problems"]],
            "next_cursor": page.get("next_cursor"),
        },
        "problems",
    )
    if answer["left_out"]:
        # the page's cursor would skip what was left out: narrow the filters instead
        answer["next_cursor"] = None
    return answer


def summary(problem: dict) -> dict:
    """Return a problem's summary.

    What it is, where, how often, since when, with the line saying what broke."""
    out = {name: problem[name] for name in PROBLEM_FIELDS if name in problem}
    for name in ("releases", "sources", "links"):
        out[name] = [short(item, 200) for item in (problem.get(name) or [])[:LISTED]]
    out["what"] = short(ticket_title(problem), 500)
    return out


def get_problem(source: Source, args: dict) -> dict:
    """Return one problem.

    What it is, exposure, first and last seen, releases, the most common value pairs, the last clean
    call before it and the nearest clean call, its ticket links and permalinks."""
    problem = source.get(f"/api/v1/problems/{args['id']}")
    cuts: list[dict] = []
    answer = summary(problem)
    pairs, _ = first(problem.get("value_pairs") or [], VALUE_PAIRS)
    answer["value_pairs"] = [_pair(pair, f"/value_pairs/{n}", cuts) for n, pair in enumerate(pairs)]
    answer["exposure"] = problem.get("exposure")
    answer["by_release"] = (problem.get("by_release") or [])[:LISTED]
    answer["examples"] = {name: _call(source, call) for name, call in _examples(problem).items()}
    answer["last_clean_before"] = _call(source, problem.get("last_clean_before"))
    answer["nearest_clean_call"] = nearest(source, problem["id"])
    answer["state_history"] = [
        {**entry, "detail": short(entry.get("detail"), 500)}
        for entry in (problem.get("state_history") or [])[:HISTORY]
    ]
    answer["resolution"], answer["verification"] = (
        problem.get("resolution"),
        problem.get("verification"),
    )
    return with_cuts(answer, cuts)


def _examples(problem: dict) -> dict:
    examples = problem.get("examples") or {}
    return {name: examples.get(name) for name in ("first", "latest")}


def _pair(pair: dict, at: str, cuts: list[dict]) -> dict:
    out = {"count": pair.get("count", 0), "missing": pair.get("missing") or []}
    for side in ("left", "right"):
        out[side] = cut_value(pair.get(side), VALUE_BYTES, f"{at}/{side}", cuts)
    return out


def _call(source: Source, call: dict | None) -> dict | None:
    """Return a call's place with its permalink."""
    if not call:
        return None
    permalink = link(source, "traces", call["trace_id"]) + "?call=" + link_part(call["call_id"])
    return {**call, "permalink": permalink}


def link_part(text: str) -> str:
    from urllib.parse import quote

    return quote(text, safe="")


def nearest(source: Source, problem_id: str) -> dict | None:
    """Return the nearest clean call of the problem's tool, with a compare link.

    Its page's "compare with the nearest clean call": the clean call whose arguments are most like
    the latest failing call's, with the compare page's link."""
    location = source.location(f"/problems/{problem_id}/nearest")
    if location is None:
        return None
    query = parse_qs(urlsplit(location).query)
    if "a" not in query or "ca" not in query:
        return None
    found = {"trace_id": query["a"][0], "call_id": query["ca"][0]}
    if "method" in query:
        # how it was ranked: deep_distance, or key_set for big arguments
        found["method"] = query["method"][0]
    try:
        found["distance"] = float(query["distance"][0])
    except (KeyError, ValueError):
        pass
    compare = location if location.startswith("http") else source.base_url + location
    return {**_call(source, found), "compare_url": compare}


def compare_release(source: Source, args: dict) -> dict:
    """Return what a release broke and fixed.

    Broke: problems it shows that the release compared with never did."""
    release = args["release"]
    # the release alone (a 404 release_not_found when no call named it), with the one first seen
    # before it
    entry = source.get("/api/v1/releases", {"release": release})["releases"][0]
    other = args.get("with")
    if other is None:
        other = entry.get("previous")
    answer = {"release": release, "with": other}
    answer["permalink"] = (
        source.base_url + "/releases?" + _query({"release": other, "compare": release})
    )
    # the first release: what it broke is what it brought
    if other is None:
        page = source.get("/api/v1/problems", {"new_in": release, "limit": COMPARED})
        broke, fixed = page["problems"], []
        answer["permalink"] = source.base_url + "/releases?" + _query({"release": release})
    else:
        found = source.get("/api/v1/releases", {"release": other, "compare": release})["comparison"]
        broke, fixed = found["broke"], found["fixed"]
    answer["broke"], answer["broke_total"] = first([summary(p) for p in broke], COMPARED)
    answer["fixed"], answer["fixed_total"] = first([summary(p) for p in fixed], COMPARED)
    # each side held to half the bound, so a long list of fixed problems never crowds out what broke
    for side in ("broke", "fixed"):
        answer[side] = fit({side: answer[side]}, side, MAX_ANSWER_BYTES // 2)[side]
    return answer


def _query(params: dict) -> str:
    from urllib.parse import urlencode

    return urlencode({key: value for key, value in params.items() if value})
