"""The tracediff command line, run through click on a real database file."""
import json

import orjson
from click.testing import CliRunner

from webapp.cli import main
from webapp.store import Store

from helpers import TRACE, envelope, ndjson, order_call
from conftest import SAMPLES


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input, catch_exceptions=False)


def test_ingest_loads_files_and_reports_accepted_duplicates_and_rejections(tmp_path, db_path):
    events = tmp_path / "events.ndjson"
    events.write_bytes(ndjson(*order_call(), {"trace_id": TRACE, "snapshot": "nope", "payload": 1}))
    first = run("ingest", events, "--db", db_path)
    assert "accepted 3, duplicates 0, rejected 1" in first.output
    assert "record 4" in first.output and "nope" in first.output
    second = run("ingest", events, "--db", db_path)
    assert "accepted 0, duplicates 3" in second.output
    assert Store(db_path).count_events() == 3


def test_ingest_reads_stdin_and_analyses_what_it_loaded(db_path):
    result = run("ingest", "-", "--db", db_path, input=ndjson(*order_call(limit_sent="5")).decode())
    assert "accepted 3" in result.output
    call = Store(db_path).get_trace(TRACE)["calls"][0]
    assert call["analyzed"] and any(f["kind"] == "type_changed" for f in call["findings"])


def test_ingest_streams_a_large_file_in_batches(tmp_path, db_path):
    big = tmp_path / "big.ndjson"
    filler = "x" * 2000
    with big.open("wb") as handle:
        for n in range(3000):
            handle.write(orjson.dumps(envelope(trace_id=f"{n:032x}", payload={"note": filler, "n": n})) + b"\n")
    result = run("ingest", big, "--db", db_path, "--batch-size", "500")
    assert "accepted 3000" in result.output
    assert Store(db_path).count_traces() == 3000


def test_tools_import_reads_every_sample_contract(db_path):
    files = sorted((SAMPLES / "contracts").glob("*.json"))
    result = run("tools", "import", *files, "--db", db_path)
    assert result.exit_code == 0, result.output
    names = {tool["name"] for tool in Store(db_path).list_tools()}
    assert {"findOrders", "createInvoice"} <= names
    assert "findOrders" in run("tools", "list", "--db", db_path).output


def write(tmp_path, name, value):
    path = tmp_path / name
    path.write_text(json.dumps(value))
    return path


CONTRACT = {"name": "findOrders",
            "arguments_schema": {"type": "object", "properties": {"limit": {"type": "integer"}}},
            "request_schema": {"type": "object", "properties": {"limit": {"type": "integer"}}}}


def test_check_passes_clean_fixtures_and_fails_a_type_change(tmp_path):
    contract = write(tmp_path, "contract.json", CONTRACT)
    args = write(tmp_path, "tool-args.json", {"limit": 5})
    good = write(tmp_path, "http-body.json", {"limit": 5})
    bad = write(tmp_path, "http-body-bad.json", {"limit": "5"})
    assert run("check", "--contract", contract, "--arguments", args, "--request", good).exit_code == 0
    failing = run("check", "--tool", "findOrders", "--contract", contract, "--arguments", args, "--request", bad)
    assert failing.exit_code == 1
    assert "type_changed" in failing.output and "/limit" in failing.output


def test_check_without_any_snapshot_is_a_usage_error(tmp_path):
    assert run("check").exit_code != 0


def test_reanalyze_recomputes_after_a_contract_change(db_path):
    run("ingest", "-", "--db", db_path, input=ndjson(*order_call()).decode())
    result = run("reanalyze", "--db", db_path)
    assert "reanalysed 1 call(s)" in result.output


def test_prune_deletes_old_traces(db_path):
    run("ingest", "-", "--db", db_path, input=ndjson(envelope(ts="2020-01-01T00:00:00Z")).decode())
    assert "deleted 1 trace(s)" in run("prune", "--days", 30, "--db", db_path).output
    assert Store(db_path).count_traces() == 0
