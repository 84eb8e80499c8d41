"""The stages are declared once (webapp/common/stages.py).

A fifth one needs that declaration and what reads it.

No module spells the stages out as a list of its own (a check over webapp/, templates/ and static/),
and a copy of the package with one more Stage in STAGES, and no other change, ingests, stores, lists
and shows it.
"""

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import parsed

from webapp.common.stages import CORE, FIXTURES, NAMES, PAIRS, STAGES, TAGS, Stage, shown, spelt

ROOT = Path(__file__).resolve().parent.parent
WEBAPP = ROOT / "webapp"
# Where a literal may still name three stages or more, and why: each gives the stages roles of its
# own.
ALLOWED = {
    # the declaration itself
    ("common/stages.py", "<module>"),
    # `tracediff check` has one option per stage (--arguments, --request...): a new stage gets its
    # own
    ("cli/main.py", "check"),
    # the alignment's rules: a row built from an argument, its request path and the response echoing
    # it
    ("analysis/alignment/builder.py", "_arguments"),
    ("analysis/alignment/rows.py", "_default"),
    # the MCP tool check_call's input schema: one described field per stage, as the CLI's options
    ("mcp/schemas.py", "inputs"),
}
FIFTH = (
    'Stage("transcript", "what the agent said after", "transcript.json", after="result", '
    'always=False, tag="trn")'
)


def literals(tree: ast.AST, where: str = "<module>"):
    """Yield (function, names) for each tuple, list, set or dict-keys literal naming stages, by
    enclosing function."""
    for node in ast.iter_child_nodes(tree):
        inside = node.name if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else where
        if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
            items = node.keys if isinstance(node, ast.Dict) else node.elts
            named = {
                item.value
                for item in items
                if isinstance(item, ast.Constant) and item.value in NAMES
            }
            yield inside, named
        yield from literals(node, inside)


def spelt_out(webapp: Path = WEBAPP) -> list[str]:
    """Return where a module lists three stage names or more in one literal, outside ALLOWED and
    migrations."""
    found = []
    for path in sorted(webapp.rglob("*.py")):
        module = path.relative_to(webapp).as_posix()
        if module.startswith("store/migrations/"):
            # history: what a past schema was
            continue
        for function, named in literals(parsed(path)):
            if len(named) >= 3 and (module, function) not in ALLOWED:
                found.append(f"{module} {function}: {sorted(named)}")
    return found


def spelt_in_pages() -> list[str]:
    """Return the template and script lines that name three stages or more."""
    files = [*(ROOT / "templates").rglob("*.html"), *(ROOT / "static").glob("app*.js")]
    return [
        f"{path.relative_to(ROOT)}:{number}"
        for path in files
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if len({name for name in NAMES if re.search(rf"\b{name}\b", line)}) >= 3
    ]


def test_no_module_lists_the_stages_but_the_declaration():
    assert not spelt_out(), "derive these from webapp.common.stages:\n" + "\n".join(spelt_out())


def test_no_template_or_script_lists_the_stages():
    assert not spelt_in_pages(), "pass the stages from webapp.common.stages:\n" + "\n".join(
        spelt_in_pages()
    )


def test_the_check_sees_a_list_of_stages(tmp_path):
    """The check itself: a tuple, a dict's keys or a default argument naming three stages is
    found."""
    (tmp_path / "web").mkdir()
    probe = tmp_path / "web" / "probe.py"
    probe.write_text(
        'SHOWN = ("arguments", "request", "response")\n\n\n'
        'def files(a, b, c):\n    return {"arguments": a, "request": b, "result": c}\n\n\n'
        'def compare(stages=["request", "response", "result"], pair=("arguments", "request")):\n   '
        " return stages\n"
    )
    assert spelt_out(tmp_path) == [
        "web/probe.py <module>: ['arguments', 'request', 'response']",
        "web/probe.py files: ['arguments', 'request', 'result']",
        "web/probe.py compare: ['request', 'response', 'result']",
    ]


def test_the_four_stages_as_events_fixtures_and_pages_name_them():
    """What the declaration says is what the interfaces have always said (no behaviour change)."""
    assert NAMES == ("arguments", "request", "response", "result")
    assert CORE == ("arguments", "request", "response")
    assert FIXTURES == {
        "arguments": "tool-args.json",
        "request": "http-body.json",
        "response": "http-response.json",
        "result": "tool-result.json",
    }
    assert PAIRS == (("arguments", "request"), ("request", "response"), ("response", "result"))
    assert TAGS == {"arguments": "arg", "request": "req", "response": "res", "result": "ret"}
    assert len({stage.fixture for stage in STAGES}) == len(STAGES)
    assert shown({"result"}) == NAMES and shown(set()) == CORE
    assert spelt() == "arguments, request, response or result"


def test_a_stage_is_compared_only_with_one_declared_before_it():
    for stage in STAGES:
        assert stage.after is None or NAMES.index(stage.after) < NAMES.index(stage.name)
    assert isinstance(eval(FIFTH, {"Stage": Stage}), Stage)


def with_a_fifth_stage(target: Path) -> Path:
    """Copy the package, its templates and static files, with FIFTH added to STAGES and nothing else
    changed."""
    ignore = shutil.ignore_patterns("__pycache__")
    for folder in ("webapp", "templates", "static"):
        shutil.copytree(ROOT / folder, target / folder, ignore=ignore)
    declaration = target / "webapp" / "common" / "stages.py"
    text = declaration.read_text()
    start = text.index("STAGES = (\n")
    end = text.index("\n)\n", start)
    declaration.write_text(f"{text[:end]}\n    {FIFTH},{text[end:]}")
    return target


# Run in the copy: post the five snapshots of a call, then read it back the ways a user does.
FIVE_STAGE_RUN = """
import io, json, sys, zipfile
from webapp import create_app
from webapp.common.stages import NAMES

app = create_app({"TESTING": True, "DATABASE": sys.argv[1], "ANALYZER": "off"})
client = app.test_client()
trace = "4bf92f3577b34da6a3ce929d0e0e4736"
payloads = {
    "arguments": {"status": "paid", "limit": 5},
    "request": {"status": "paid", "limit": 5},
    "response": {"orders": [], "total": 0},
    "result": {"content": [{"type": "text", "text": "no orders"}]},
    "transcript": {"said": "You have no paid orders."},
}
events = [
    {"trace_id": trace, "call_id": "c1", "snapshot": name, "tool": "findOrders", "payload": payload,
     "ts": f"2026-11-20T09:00:0{n}Z", **({"http": {"status_code": 200}} if name == "response" else {})}
    for n, (name, payload) in enumerate(payloads.items())
]
ingested = client.post("/api/v1/ingest", data="\\n".join(json.dumps(e) for e in events)).get_json()
halves = {"trace_id": "0af7651916cd43dd8448eb211c80319c", "call_id": "c2", "snapshot": "arguments",
          "tool": "findOrders", "payload": {"limit": 1}}
client.post("/api/v1/ingest", data=json.dumps(halves))
call = client.get(f"/api/v1/traces/{trace}").get_json()["calls"][0]
zipped = client.get(f"/traces/{trace}/fixtures.zip?call=c1")
raw = client.get(f"/traces/{trace}?view=raw&call=c1").get_data(as_text=True)
listed = client.get(f"/api/v1/traces?missing=transcript").get_json()
print(json.dumps({
    "names": NAMES,
    "ingested": ingested,
    "snapshot": call["snapshots"]["transcript"]["payload"],
    "versions": client.get(f"/api/v1/traces/{trace}/calls/c1/transcript/versions").status_code,
    "zip": sorted(zipfile.ZipFile(io.BytesIO(zipped.data)).namelist()),
    "zipped": json.loads(zipfile.ZipFile(io.BytesIO(zipped.data)).read("transcript.json")),
    "raw": 'data-snap="transcript"' in raw or 'id="transcript' in raw,
    "tag": ">trn</span>" in client.get("/").get_data(as_text=True),
    "missing": [t["trace_id"] for t in listed["traces"]],
}))
"""


@pytest.mark.slow
def test_a_fifth_stage_declared_once_is_ingested_stored_listed_shown_and_zipped(tmp_path):
    """Only the declaration changes: ingest accepts the stage, the store gives it columns, the trace
    JSON, the raw view, the list's tags and "missing" filter and the fixtures zip carry it."""
    copy = with_a_fifth_stage(tmp_path / "copy")
    run = subprocess.run(
        [sys.executable, "-c", FIVE_STAGE_RUN, str(tmp_path / "five.db")],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(copy)},
    )
    assert run.returncode == 0, run.stderr[-3000:]
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert seen["names"] == [*NAMES, "transcript"]
    assert seen["ingested"] == {"accepted": 5, "duplicates": 0, "rejected": []}
    assert seen["snapshot"] == {"said": "You have no paid orders."}
    assert seen["versions"] == 200
    assert seen["zip"] == sorted(["call.json", "README.md", *FIXTURES.values(), "transcript.json"])
    assert seen["zipped"] == {"said": "You have no paid orders."}
    assert seen["raw"] and seen["tag"]
    assert seen["missing"] == ["0af7651916cd43dd8448eb211c80319c"]


def test_the_unchanged_package_refuses_the_fifth_stage(client):
    """The control: without the declaration, the same event is rejected, so the test above shows the
    declaration."""
    event = {
        "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736",
        "snapshot": "transcript",
        "payload": {"said": "hi"},
    }
    answer = client.post("/api/v1/ingest", data=json.dumps(event)).get_json()
    assert answer["accepted"] == 0
    assert answer["rejected"][0]["code"] == "bad_snapshot"
    assert "arguments, request, response or result" in answer["rejected"][0]["message"]
