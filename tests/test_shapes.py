"""Every shape of the corpus (bench/corpus.py), small, through the whole path.

Ingest, analysis, page, API."""

import html as html_lib
import math
import re
import sys
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from webapp import create_app
from webapp.analysis import FOLD_AT
from webapp.cli import main
from webapp.pipeline import analyze_all
from webapp.store import Store
from webapp.web.render.tree import node_id

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from corpus import SHAPES  # noqa: E402

SIZE = 20_000
PAGE_BYTES = 400_000
# the raw view of a 0.25 MB shape: one first part, the rest on demand
RAW_BYTES = 400_000
# shape -> (kind, left pattern, right pattern): one mapping bug repeated in every place it can be.
FOLDS = {
    "records_enum": ("enum_changed", "/orders/*/status", "/orders/*/status"),
    "records_number_string": ("type_changed", "/orders/*/amount", "/orders/*/amount"),
    "records_date_format": ("format_changed", "/orders/*/created_at", "/orders/*/created_at"),
    "records_scaled": ("scaled", "/orders/*/amount", "/orders/*/amount"),
    # A whole array of scalars changed one way is one finding at the array
    # (analysis/rules/arrays.py).
    "strings_all_changed": ("enum_changed", "/tags", "/tags"),
    "numbers_all_changed": ("type_changed", "/values", "/values"),
    "identical_records": ("enum_changed", "/lines/*/currency", "/lines/*/currency"),
    "records_renamed_field": ("renamed", "/orders/*/amount", "/orders/*/total"),
    "keys_renamed": ("renamed", "/*", "/*"),
    "duplicate_leftovers": ("dropped", "/*", None),
    # each record's list folds at the list, and those fold across the records
    "records_lists_changed": ("enum_changed", "/orders/*/tags", "/orders/*/tags"),
    "deep_nesting": (
        "type_changed",
        "/trees/*" + "/k2/k1/k0" * 20 + "/leaf",
        "/trees/*" + "/k2/k1/k0" * 20 + "/leaf",
    ),
}


@pytest.fixture
def client(db_path):
    """The app with no time budget: a read analyses in full however busy the machine is.

    The budget has its own test."""
    return create_app(
        {"TESTING": True, "DATABASE": str(db_path), "ANALYZER": "off", "ANALYSIS_BUDGET": 0}
    ).test_client()


def post_call(client, trace_id: str, call_id: str, snapshots: dict) -> None:
    events = [
        {
            "trace_id": trace_id,
            "call_id": call_id,
            "snapshot": name,
            "tool": "shapeTool",
            "payload": snap["payload"],
            "http": snap["http"],
        }
        for name, snap in snapshots.items()
        if snap
    ]
    answer = client.post("/api/v1/ingest", data=orjson.dumps(events))
    assert answer.status_code == 200 and answer.get_json()["accepted"] == len(events), (
        answer.get_json()
    )


def count_places(doc, pattern: str) -> int:
    """Count the nodes of doc a pattern with `*` (any key or index) names."""
    nodes = [doc]
    for token in pattern.split("/")[1:]:
        step = []
        for node in nodes:
            if token == "*" and isinstance(node, (dict, list)):
                step += list(node.values() if isinstance(node, dict) else node)
            elif isinstance(node, dict) and token in node:
                step.append(node[token])
        nodes = step
    return len(nodes)


def every_place(client, trace_id: str, number: int) -> list[dict]:
    """Page through every place of one finding with the API."""
    out, offset = [], 0
    while offset is not None:
        page = client.get(
            f"/api/v1/traces/{trace_id}/findings?finding={number}&offset={offset}&limit=1000"
        )
        assert page.status_code == 200, page.get_json()
        out += page.get_json()["occurrences"]
        offset = page.get_json()["next_offset"]
    return out


@pytest.mark.parametrize("shape", SHAPES)
def test_every_shape_is_analysed_in_full_and_its_page_stays_small(client, shape):
    snapshots, _ = SHAPES[shape](SIZE)
    post_call(client, f"shape-{shape}", "c1", snapshots)
    call = client.get(f"/api/v1/traces/shape-{shape}").get_json()["calls"][0]
    assert call["analyzed"] and "incomplete" not in call
    page = client.get(f"/traces/shape-{shape}")
    assert page.status_code == 200 and len(page.data) < PAGE_BYTES
    text = page.get_data(as_text=True)
    for number, finding in enumerate(call["findings"], 1):
        if finding.get("occurrences"):
            assert f"{finding['occurrences']:,} places" in text
            places = every_place(client, f"shape-{shape}", number)
            assert len(places) == finding["occurrences"] >= FOLD_AT
            first = finding["examples"][0]
            assert (places[0]["left"], places[0]["right"]) == (first["left"], first["right"])
            assert places[0]["left_value"] == first["left_value"]


@pytest.mark.parametrize("shape", FOLDS)
def test_a_bug_repeated_in_every_place_is_one_finding_with_its_count_and_examples(client, shape):
    snapshots, _ = SHAPES[shape](SIZE)
    post_call(client, "t", "c1", snapshots)
    kind, left, right = FOLDS[shape]
    findings = client.get("/api/v1/traces/t").get_json()["calls"][0]["findings"]
    folded = [
        f
        for f in findings
        if f["kind"] == kind
        and (f["left"] or {}).get("path") == left
        and (f["right"] or {}).get("path") == right
    ]
    assert len(folded) == 1, [(f["kind"], f["left"], f["right"]) for f in findings]
    if "*" in left:
        # Booleans under unrelated keys: some pair by elimination, the rest are dropped.
        places = count_places(snapshots["arguments"]["payload"], left)
        assert (
            FOLD_AT <= folded[0]["occurrences"] <= places
            if kind == "dropped"
            else folded[0]["occurrences"] == places
        )
        assert len(folded[0]["examples"]) == 3
        assert not [
            f
            for f in findings
            if f["kind"] == kind and "*" not in (f["left"] or f["right"])["path"]
        ]


def test_an_echo_changed_in_every_third_record_folds_at_the_response(client):
    snapshots, _ = SHAPES["echo_with_changes"](SIZE)
    post_call(client, "t", "c1", snapshots)
    findings = client.get("/api/v1/traces/t").get_json()["calls"][0]["findings"]
    echo = [f for f in findings if f["kind"] == "echo_mismatch"]
    records = len(snapshots["request"]["payload"]["orders"])
    assert len(echo) == 1 and echo[0]["right"] == {
        "snapshot": "response",
        "path": "/orders/*/status",
    }
    assert echo[0]["occurrences"] == math.ceil(records / 3)


def test_the_findings_api_answers_bad_pages_and_unknown_findings_in_the_error_shape(client):
    post_call(client, "t", "c1", SHAPES["records_enum"](SIZE)[0])
    assert client.get("/api/v1/traces/t/findings").get_json()["total"] >= 1
    for query, status, code in (
        ("limit=0", 400, "bad_parameter"),
        ("offset=-1", 400, "bad_parameter"),
        ("finding=99", 404, "finding_not_found"),
        ("call=nope", 404, "call_not_found"),
    ):
        answer = client.get(f"/api/v1/traces/t/findings?{query}")
        assert answer.status_code == status and answer.get_json()["error"]["code"] == code
    assert (
        client.get("/api/v1/traces/nope/findings").get_json()["error"]["code"] == "trace_not_found"
    )


def test_a_tiny_budget_saves_what_it_found_marked_incomplete_and_reanalyze_finishes_it(tmp_path):
    db = tmp_path / "budget.db"
    client = create_app(
        {"TESTING": True, "DATABASE": str(db), "ANALYZER": "off", "ANALYSIS_BUDGET": 1e-6}
    ).test_client()
    for call_id in ("c1", "c2"):
        post_call(client, "t", call_id, SHAPES["strings_all_changed"](50_000)[0])
    # A read saves nothing it could not finish within the budget: both calls wait for the analyser.
    assert "analysis pending" in client.get("/traces/t?call=c2").get_data(as_text=True)
    assert "analysis pending" in client.get("/traces/t?call=c1").get_data(as_text=True)
    # The background analyser, with the same budget, saves what it found, marked incomplete.
    store = Store(db)
    analyze_all(store, budget=1e-6)
    store.close()
    calls = {c["call_id"]: c for c in client.get("/api/v1/traces/t").get_json()["calls"]}
    assert (
        "time budget" in calls["c1"]["incomplete"]
        and "reanalyze --budget" in calls["c1"]["incomplete"]
    )
    assert "analysis incomplete" in client.get("/traces/t?call=c1").get_data(as_text=True)
    assert client.get("/api/v1/traces/t/findings?call=c1").get_json()["incomplete"]

    result = CliRunner().invoke(
        main, ["reanalyze", "--budget", "0", "--db", str(db)], catch_exceptions=False
    )
    assert result.exit_code == 0 and "reanalysed 2 calls" in result.output
    calls = client.get("/api/v1/traces/t").get_json()["calls"]
    assert all(c["analyzed"] and "incomplete" not in c for c in calls)
    assert all(
        [(f["kind"], f["left"]["path"]) for f in c["findings"]] == [("enum_changed", "/tags")]
        for c in calls
    )


def follow_raw_pages(client, html: str, snapshot: str) -> list[str]:
    """Return the pointers of every node of one snapshot's raw tree, following each "show more"."""
    pointers = re.findall(rf'<li class="node[^"]*" id="{snapshot}[^"]*" data-ptr="([^"]*)"', html)
    links = re.findall(r'<li class="more"><a href="([^"]+)"', html)
    while links:
        part = client.get(
            links.pop(0).replace("&amp;", "&"), headers={"HX-Request": "true"}
        ).get_data(as_text=True)
        assert len(part) < RAW_BYTES
        pointers += re.findall(
            rf'<li class="node[^"]*" id="{snapshot}[^"]*" data-ptr="([^"]*)"', part
        )
        links += re.findall(r'<li class="more"><a href="([^"]+)"', part)
    return pointers


@pytest.mark.parametrize("shape", ["unicode_long_keys", "deep_nesting", "echo_with_changes"])
def test_the_raw_view_sends_a_first_part_and_every_node_comes_once_on_demand(client, shape):
    snapshots, _ = SHAPES[shape](250_000)
    post_call(client, "t", "c1", snapshots)
    answer = client.get("/traces/t?view=raw")
    html = answer.get_data(as_text=True)
    assert answer.status_code == 200 and len(answer.data) < RAW_BYTES
    assert 'download="arguments.json"' in html
    # every key is marked: the marked nodes past the first part come on demand
    if shape == "unicode_long_keys":
        keys = snapshots["arguments"]["payload"]
        pointers = [unescape_html(p) for p in follow_raw_pages(client, html, "arguments")]
        assert sorted(pointers) == sorted(["", *(f"/{k}" for k in keys)])
        # A deep link to the last key lands on it past the cut, and no later page repeats it.
        last = node_id("arguments", f"/{list(keys)[-1]}")
        linked = client.get("/traces/t", query_string={"open": last}).get_data(as_text=True)
        assert linked.count(f'id="{last}"') == 1
        again = [unescape_html(p) for p in follow_raw_pages(client, linked, "arguments")]
        assert sorted(again) == sorted(pointers)


def unescape_html(text: str) -> str:
    return html_lib.unescape(text)
