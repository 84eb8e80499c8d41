"""The bundled sample traces are valid envelopes.

And their contracts agree with what the README claims."""

import json
import re
import shutil
from datetime import UTC, datetime
from pathlib import Path

import jsonschema
import pytest
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from webapp.cli import demo

SAMPLES = Path(__file__).resolve().parent.parent / "sample_traces"
CONTRACTS = SAMPLES / "contracts"
TRACE_FILES = sorted(SAMPLES.glob("*.ndjson"))
SNAPSHOTS = {"arguments", "request", "response"}
# The error envelope issue 3 documents for contracts that declare no error_schema.
DEFAULT_ERROR_SCHEMA = {
    "type": "object",
    "properties": {
        "code": {"type": "string"},
        "message": {"type": "string"},
        "retryable": {"type": "boolean"},
    },
    "required": ["code", "message", "retryable"],
}
FINDING_KINDS = {
    "renamed",
    "case_changed",
    "moved",
    "type_changed",
    "enum_changed",
    "format_changed",
    "scaled",
    "value_changed",
    "dropped",
    "added",
    "echo_mismatch",
    "error_shape",
    "status_mismatch",
    "invalid_json",
}
NOT_JSON = "(not JSON)"


def read_events(path):
    """Return the events of one NDJSON file."""
    return [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


def load_json(path):
    """Return the parsed content of a JSON file."""
    return json.loads(path.read_text(encoding="utf-8"))


def readme_rows():
    """Return the README table as {file name: {column header: cell}}."""
    lines = [
        ln
        for ln in (SAMPLES / "README.md").read_text(encoding="utf-8").splitlines()
        if ln.startswith("|")
    ]
    split = lambda ln: [cell.strip() for cell in ln.strip().strip("|").split("|")]  # noqa: E731
    header = split(lines[0])
    rows = [dict(zip(header, split(ln))) for ln in lines[2:]]
    return {row["File"].strip("`"): row for row in rows}


def contracts():
    """Return the native contracts (PUT bodies plus name) by tool name."""
    found = (load_json(p) for p in sorted(CONTRACTS.glob("*.json")))
    return {c["name"]: c for c in found if isinstance(c, dict) and "arguments_schema" in c}


def validator(schema):
    """Build a format-checking validator, Draft 7 unless the schema names its dialect."""
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft7Validator)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def pointer(parts):
    """Return the JSON Pointer of a sequence of keys and indexes."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def error_pointers(error):
    """Return the pointers an error is about: its path, or the unexpected or missing keys under
    it."""
    base = list(error.absolute_path)
    if error.validator == "additionalProperties":
        return [
            pointer(base + [k])
            for k in error.instance
            if k not in error.schema.get("properties", {})
        ]
    if error.validator == "required":
        return [pointer(base + [k]) for k in error.validator_value if k not in error.instance]
    return [pointer(base)]


def current_snapshots(events):
    """Return {(call_id, snapshot): event}, keeping the latest version of each snapshot."""
    current = {}
    for ev in sorted(events, key=lambda e: datetime.fromisoformat(e["ts"])):
        current[(ev.get("call_id", ""), ev["snapshot"])] = ev
    return current


def schema_for(contract, event):
    """Return the schema a snapshot must meet: error schema for a 4xx/5xx response."""
    if event["snapshot"] == "response" and event["http"]["status_code"] >= 400:
        return contract.get("error_schema", DEFAULT_ERROR_SCHEMA)
    return contract[event["snapshot"] + "_schema"]


def schema_problems(path):
    """Return {snapshot: [pointers of schema errors]} for the current snapshots of a trace file."""
    problems = {}
    for ev in current_snapshots(read_events(path)).values():
        payload = ev["payload"]
        if isinstance(payload, str):
            try:
                payload = json.loads(payload)
            except json.JSONDecodeError:
                problems.setdefault(ev["snapshot"], []).append(NOT_JSON)
                continue
        errors = validator(schema_for(contracts()[ev["tool"]], ev)).iter_errors(payload)
        found = [p for e in errors for p in error_pointers(e)]
        if found:
            problems.setdefault(ev["snapshot"], []).extend(found)
    return problems


def test_there_are_at_least_twelve_distinct_traces_one_per_file():
    trace_ids = [{ev["trace_id"] for ev in read_events(p)} for p in TRACE_FILES]
    assert all(len(ids) == 1 for ids in trace_ids)
    assert len(set().union(*trace_ids)) == len(TRACE_FILES) >= 12


@pytest.mark.parametrize("path", TRACE_FILES, ids=lambda p: p.name)
def test_every_line_is_an_envelope_v1_event(path):
    assert re.fullmatch(r"\d\d-[a-z]+(-[a-z0-9]+)+\.ndjson", path.name)
    for ev in read_events(path):
        assert isinstance(ev, dict)
        assert isinstance(ev["trace_id"], str) and 1 <= len(ev["trace_id"]) <= 128
        assert re.fullmatch(r"[0-9a-f]{32}", ev["trace_id"])
        assert ev["snapshot"] in SNAPSHOTS
        assert "payload" in ev
        assert re.fullmatch(r"call_\d\d", ev["call_id"])
        assert ev["ts"].endswith("Z") and datetime.fromisoformat(ev["ts"]).year == 2026
        assert isinstance(ev.get("event_id", ""), str)
        if ev["snapshot"] != "arguments":
            assert {"method", "url", "headers"} <= set(ev["http"])
        if ev["snapshot"] == "response":
            assert isinstance(ev["http"]["status_code"], int)


def test_every_trace_file_has_a_row_in_the_readme_and_every_row_a_file():
    assert set(readme_rows()) == {p.name for p in TRACE_FILES}


def test_readme_findings_are_kinds_from_the_closed_list_or_clean():
    for row in readme_rows().values():
        finding = row["Finding expected"].strip("`")
        assert finding.startswith("clean") or finding in FINDING_KINDS, finding


def test_samples_show_each_mapping_bug_kind_and_several_clean_calls():
    findings = [row["Finding expected"].strip("`") for row in readme_rows().values()]
    expected = FINDING_KINDS - {"case_changed", "moved", "value_changed"}
    assert expected <= set(findings)
    assert sum(f.startswith("clean") for f in findings) >= 5


def test_every_tool_in_the_traces_has_a_contract():
    tools = {ev["tool"] for p in TRACE_FILES for ev in read_events(p)}
    assert tools <= set(contracts())


@pytest.mark.parametrize("name", sorted(contracts()))
def test_contract_schemas_are_valid_json_schemas(name):
    contract = contracts()[name]
    assert (CONTRACTS / f"{name}.json").exists()
    for key in ("arguments_schema", "request_schema", "response_schema", "error_schema"):
        if key in contract:
            schema = contract[key]
            jsonschema.validators.validator_for(
                schema, default=jsonschema.Draft7Validator
            ).check_schema(schema)


def declares(schema, ptr):
    """Tell whether an object schema declares the property a JSON Pointer names."""
    for token in ptr.split("/")[1:]:
        schema = (
            schema.get("items", {}) if token.isdigit() else schema.get("properties", {}).get(token)
        )
        if schema is None:
            return False
    return True


@pytest.mark.parametrize("name", sorted(contracts()))
def test_declared_mappings_name_properties_of_both_schemas(name):
    contract = contracts()[name]
    for pair in contract["mapping"]:
        assert declares(contract["arguments_schema"], pair["arguments"])
        assert declares(contract["request_schema"], pair["request"])


@pytest.mark.parametrize("name", sorted(readme_rows()))
def test_snapshots_break_their_contract_exactly_where_the_readme_says(name):
    row = readme_rows()[name]
    claim = row["Schema break"].strip("`")
    problems = schema_problems(SAMPLES / name)
    if claim == "-":
        assert problems == {}
        return
    snapshot, where = claim.split(" ", 1)
    assert set(problems) == {snapshot}
    assert where in problems[snapshot]


def test_clean_traces_claim_no_schema_break():
    for row in readme_rows().values():
        if row["Finding expected"].startswith("clean"):
            assert row["Schema break"] == "-", row["File"]


def test_anthropic_tools_file_lists_every_contract_input_schema():
    tools = load_json(CONTRACTS / "anthropic-tools.json")
    assert all(set(tool) == {"name", "description", "input_schema"} for tool in tools)
    assert {t["name"]: t["input_schema"] for t in tools} == {
        n: c["arguments_schema"] for n, c in contracts().items()
    }


def walk_refs(node):
    """Yield every $ref value in a JSON document."""
    if isinstance(node, dict):
        yield from ([node["$ref"]] if "$ref" in node else [])
        for value in node.values():
            yield from walk_refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk_refs(value)


@pytest.mark.parametrize(
    "file_name, version", [("billing.openapi.json", "3.1"), ("tasks.openapi.json", "3.0")]
)
def test_openapi_documents_name_sample_tools_and_their_refs_resolve(file_name, version):
    doc = load_json(CONTRACTS / file_name)
    assert doc["openapi"].startswith(version)
    operation_ids = {op["operationId"] for item in doc["paths"].values() for op in item.values()}
    assert operation_ids & set(contracts())
    registry = Registry().with_resource("urn:doc", DRAFT202012.create_resource(doc))
    for ref in walk_refs(doc):
        assert registry.resolver("urn:doc").lookup("urn:doc" + ref).contents is not None


def test_billing_openapi_create_invoice_agrees_with_the_sample_calls():
    doc = load_json(CONTRACTS / "billing.openapi.json")
    registry = Registry().with_resource("urn:billing", DRAFT202012.create_resource(doc))
    op = "urn:billing#/paths/~1v1~1invoices/post"
    body = "/content/application~1json/schema"

    def check(ref, payload):
        cls = jsonschema.Draft202012Validator
        return list(
            cls(
                {"$ref": op + ref + body}, registry=registry, format_checker=cls.FORMAT_CHECKER
            ).iter_errors(payload)
        )

    clean = current_snapshots(read_events(SAMPLES / "05-invoices-clean-declared-rename.ndjson"))
    assert check("/requestBody", clean[("call_01", "request")]["payload"]) == []
    assert check("/responses/201", clean[("call_01", "response")]["payload"]) == []
    outage = current_snapshots(read_events(SAMPLES / "07-invoices-503-without-retryable.ndjson"))
    assert [
        e.validator for e in check("/responses/503", outage[("call_01", "response")]["payload"])
    ] == ["required"]


@pytest.mark.parametrize("file_name", ["billing.openapi.json", "tasks.openapi.json"])
def test_openapi_documents_pass_the_openapi_spec_validator(file_name):
    spec_validator = pytest.importorskip("openapi_spec_validator")
    spec_validator.validate(load_json(CONTRACTS / file_name))


def test_the_demo_tells_the_story_of_a_regression_and_of_a_problem_one_source_has(
    sample_file, tmp_path
):
    """Loaded as `serve --demo` loads them: findOrders' limit broke in 1.4.0, was resolved,
    regressed in 1.4.2."""
    from webapp.pipeline.problems import read_problem
    from webapp.store import Store
    from webapp.store.problem_filters import ProblemFilters

    # loaded so once per process (conftest.py)
    store = Store(shutil.copyfile(sample_file, tmp_path / "demo.db"))
    problems, _ = store.find_problems(ProblemFilters(limit=500))
    by_place = {(p["tool"], p["kind"], (p["left"] or {}).get("path")): p for p in problems}
    limit = read_problem(store, int(by_place[("findOrders", "type_changed", "/limit")]["id"][3:]))
    assert limit["state"] == "regressed" and limit["releases"] == ["1.4.0", "1.4.2"]
    assert [h["state"] for h in limit["state_history"]] == ["regressed", "resolved", "open"]
    assert limit["state_history"][1]["by"] == "dana (on call)"
    assert limit["last_clean_before"]["release"] == "1.3.9"
    due = by_place[("createTask", "type_changed", "/dueDate")]
    assert due["sources"] == ["app_intent"] and due["transform"] == "iso8601>epoch"
    # that one problem is App Intents' alone: every other one was seen from several sources
    assert [p["id"] for p in problems if len(p["sources"]) < 2] == [due["id"]]
    # the history reads in the order things happened (first seen at the first call)
    for problem in problems:
        history = store.get_problem(int(problem["id"][3:]))["state_history"]
        assert history[-1]["at"] == problem["first_seen"]
        assert [h["at"] for h in history] == sorted((h["at"] for h in history), reverse=True)
    store.close()


def test_the_demo_moves_to_the_day_before_now_and_keeps_its_numbers(sample_file, tmp_path):
    """`serve --demo` shifts every time by whole days: "last 24h" shows calls, the TD numbers stay
    put."""
    from datetime import datetime, timedelta

    from webapp import create_app
    from webapp.store import Store

    now = datetime.now(UTC)
    # loaded in their own time, once per process (conftest.py)
    shutil.copyfile(sample_file, tmp_path / "pinned.db")
    store = Store(tmp_path / "moved.db")
    demo.load_folder(store, SAMPLES, None, now=now)
    store.close()
    pinned, moved = (_demo_problems(tmp_path / name) for name in ("pinned.db", "moved.db"))
    assert moved == pinned
    client = create_app(
        {"TESTING": True, "DATABASE": str(tmp_path / "moved.db"), "ANALYZER": "off"}
    ).test_client()
    recent = client.get("/api/v1/problems?since=24h").get_json()["problems"]
    assert recent and all(
        p["last_seen"] >= (now - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%S") for p in recent
    )
    newest = max(
        p["last_seen"] for p in client.get("/api/v1/problems?limit=200").get_json()["problems"]
    )
    assert newest <= now.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    # found by its place, not as TD-1: findOrders learns a pair at its 5th call and its calls are
    # analysed again in the next batch, so its problems are numbered after the other tools' (the
    # same in both databases)
    listed = client.get("/api/v1/problems?limit=200&tool=findOrders&kind=type_changed").get_json()[
        "problems"
    ]
    (number,) = [p["id"] for p in listed if (p["left"] or {}).get("path") == "/limit"]
    limit = client.get(f"/api/v1/problems/{number}").get_json()
    assert [h["state"] for h in limit["state_history"]] == ["regressed", "resolved", "open"]
    times = [h["at"] for h in limit["state_history"]]
    # the story's step moved too
    assert times == sorted(times, reverse=True) and times[1][11:16] == "18:00"


LOAD_DEMO = (
    "import sys; from pathlib import Path; from webapp.cli import demo; from webapp.store import "
    "Store; "
    "demo.load_folder(Store.open(sys.argv[1]), Path(sys.argv[2]), None)"
)


def _demo_problems(database) -> list:
    from webapp import create_app

    client = create_app(
        {"TESTING": True, "DATABASE": str(database), "ANALYZER": "off"}
    ).test_client()
    problems = [
        p
        for state in ("", "resolved", "archived")
        for p in client.get(f"/api/v1/problems?limit=200&state={state}").get_json()["problems"]
    ]
    return sorted(
        (p["id"], p["tool"], p["kind"], (p["left"] or {}).get("path"), p["occurrences"])
        for p in problems
    )


@pytest.mark.slow
def test_the_demo_numbers_its_problems_the_same_way_on_every_load(
    db_path, engine, request, tmp_path
):
    """`serve --demo` twice (each process hashes strings its own way) gives TD-1 ... TD-n the same
    meaning."""
    import subprocess
    import sys

    loads = []
    for seed, database in (("1", db_path), ("2", None)):
        if database is None:
            database = (
                tmp_path / "again.db"
                if engine == "sqlite"
                else request.getfixturevalue("postgres_databases").fresh()
            )
        subprocess.run(
            [sys.executable, "-c", LOAD_DEMO, str(database), str(SAMPLES)],
            check=True,
            timeout=120,
            env={**__import__("os").environ, "PYTHONHASHSEED": seed},
        )
        loads.append(_demo_problems(database))
    assert len(loads[0]) >= 10 and loads[0] == loads[1]


@pytest.mark.parametrize("name", sorted(readme_rows()))
def test_each_sample_loaded_as_the_demo_shows_the_finding_its_readme_row_expects(
    name, sample_file, tmp_path
):
    """The README's "Finding expected" is what the trace page shows: that kind among the warnings
    and errors, or none of them for a clean call (13 once showed its dropped `priority` paired with
    the client's X-Request-Id header instead)."""
    from webapp import pipeline
    from webapp.store import Store

    store = Store(shutil.copyfile(sample_file, tmp_path / "demo.db"))
    trace = pipeline.fresh_trace(store, read_events(SAMPLES / name)[0]["trace_id"], None)
    store.close()
    loud = {
        f["kind"]
        for call in trace["calls"]
        for f in call["findings"]
        if f["severity"] in ("warning", "error")
    }
    expected = readme_rows()[name]["Finding expected"].strip("`")
    if expected.startswith("clean"):
        assert loud == set(), name
    else:
        assert expected in loud, (name, sorted(loud))
