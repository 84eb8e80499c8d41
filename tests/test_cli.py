"""The tracediff command line, run through click on a real database file."""

import json
from datetime import UTC

import httpx
import orjson
import pytest
from click.testing import CliRunner
from conftest import SAMPLES, free_port
from helpers import TRACE, envelope, ndjson, order_call

import webapp.pipeline.bulk
from webapp.cli import main
from webapp.common import times
from webapp.pipeline.bulk import PROGRESS_BYTES
from webapp.store import Store


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
    assert Store.open(db_path).count_events() == 3


def test_ingest_reads_stdin_and_analyses_what_it_loaded(db_path):
    result = run("ingest", "-", "--db", db_path, input=ndjson(*order_call(limit_sent="5")).decode())
    assert "accepted 3" in result.output
    call = Store.open(db_path).get_trace(TRACE)["calls"][0]
    assert call["analyzed"] and any(f["kind"] == "type_changed" for f in call["findings"])


# The quick set streams a fifth of the file in batches of a fifth, past a lowered progress threshold
# (see the gzip test below); the run marked slow the whole file past the real one.
@pytest.mark.parametrize(
    "count, batch, progress_bytes",
    [
        pytest.param(600, 100, 512 * 1024, id="quick"),
        pytest.param(3000, 500, PROGRESS_BYTES, id="thorough", marks=pytest.mark.slow),
    ],
)
def test_ingest_streams_a_large_file_in_batches(
    tmp_path, db_path, monkeypatch, count, batch, progress_bytes
):
    monkeypatch.setattr(webapp.pipeline.bulk, "PROGRESS_BYTES", progress_bytes)
    big = tmp_path / "big.ndjson"
    filler = "x" * 2000
    with big.open("wb") as handle:
        for n in range(count):
            handle.write(
                orjson.dumps(envelope(trace_id=f"{n:032x}", payload={"note": filler, "n": n}))
                + b"\n"
            )
    assert big.stat().st_size > progress_bytes
    result = run("ingest", big, "--db", db_path, "--batch-size", batch)
    assert f"accepted {count}" in result.output
    assert Store.open(db_path).count_traces() == count


def test_tools_import_reads_every_sample_contract(db_path):
    files = sorted((SAMPLES / "contracts").glob("*.json"))
    result = run("tools", "import", *files, "--db", db_path)
    assert result.exit_code == 0, result.output
    names = {tool["name"] for tool in Store.open(db_path).list_tools()}
    assert {"findOrders", "createInvoice"} <= names
    assert "findOrders" in run("tools", "list", "--db", db_path).output


def write(tmp_path, name, value):
    path = tmp_path / name
    path.write_text(json.dumps(value))
    return path


CONTRACT = {
    "name": "findOrders",
    "arguments_schema": {"type": "object", "properties": {"limit": {"type": "integer"}}},
    "request_schema": {"type": "object", "properties": {"limit": {"type": "integer"}}},
}


def test_check_passes_clean_fixtures_and_fails_a_type_change(tmp_path):
    contract = write(tmp_path, "contract.json", CONTRACT)
    args = write(tmp_path, "tool-args.json", {"limit": 5})
    good = write(tmp_path, "http-body.json", {"limit": 5})
    bad = write(tmp_path, "http-body-bad.json", {"limit": "5"})
    assert (
        run("check", "--contract", contract, "--arguments", args, "--request", good).exit_code == 0
    )
    failing = run(
        "check",
        "--tool",
        "findOrders",
        "--contract",
        contract,
        "--arguments",
        args,
        "--request",
        bad,
    )
    assert failing.exit_code == 1
    assert "type_changed" in failing.output and "/limit" in failing.output


def test_check_without_any_snapshot_is_a_usage_error(tmp_path):
    assert run("check").exit_code != 0


def test_reanalyze_recomputes_after_a_contract_change(db_path):
    run("ingest", "-", "--db", db_path, input=ndjson(*order_call()).decode())
    result = run("reanalyze", "--db", db_path)
    assert "reanalysed 1 call" in result.output


@pytest.mark.slow
def test_reanalyze_counts_every_call_while_a_server_analyses_some_of_them(make_server):
    server = make_server()
    calls = [order_call(f"{n:032x}", limit_sent="5" if n % 2 else 5) for n in range(400)]
    with httpx.Client(base_url=server.url, timeout=30) as http:
        for start in range(0, len(calls), 100):
            assert (
                http.post(
                    "/api/v1/ingest",
                    content=ndjson(*[e for c in calls[start : start + 100] for e in c]),
                    headers={"Content-Type": "application/x-ndjson"},
                ).status_code
                == 200
            )
    # the server's analyser claims calls too
    result = run("reanalyze", "--db", server.db_path)
    assert result.exit_code == 0 and result.output.startswith("reanalysed 400 calls"), result.output


def test_prune_deletes_old_traces(db_path):
    run("ingest", "-", "--db", db_path, input=ndjson(envelope(ts="2020-01-01T00:00:00Z")).decode())
    assert "deleted 1 trace" in run("prune", "--days", 30, "--db", db_path).output
    assert Store.open(db_path).count_traces() == 0


# --- clear one-line errors, never a traceback ------------------------------------------------


def run_process(*args, timeout=60):
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "webapp", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def assert_clean_error(result, exit_code, words):
    """A click Result or a CompletedProcess: the exit code, the words, and no traceback."""
    if hasattr(result, "returncode"):
        code, output = result.returncode, result.stdout + result.stderr
    else:
        code, output = result.exit_code, result.output
    assert code == exit_code, output
    assert "Traceback" not in output and words in output, output


def test_tools_import_with_a_malformed_operation_is_a_usage_error(db_path):
    result = CliRunner().invoke(
        main,
        [
            "tools",
            "import",
            str(SAMPLES / "contracts" / "billing.openapi.json"),
            "--operation",
            "garbage",
            "--db",
            str(db_path),
        ],
    )
    assert_clean_error(
        result,
        2,
        "Invalid value for '--operation': operation 'garbage': expected TOOL=OPERATION_ID",
    )


def test_tools_import_of_an_unknown_operation_or_a_dangling_ref_fails_in_one_line(
    tmp_path, db_path
):
    openapi = json.loads((SAMPLES / "contracts" / "billing.openapi.json").read_text())
    unknown = CliRunner().invoke(
        main,
        [
            "tools",
            "import",
            str(SAMPLES / "contracts" / "billing.openapi.json"),
            "--operation",
            "x=nosuch",
            "--db",
            str(db_path),
        ],
    )
    assert_clean_error(unknown, 1, "no operation 'nosuch'")
    path = next(iter(openapi["paths"]))
    method = next(
        m for m in openapi["paths"][path] if m in ("get", "post", "put", "patch", "delete")
    )
    openapi["paths"][path][method]["responses"] = {"200": {"$ref": "#/components/responses/Nope"}}
    broken = write(tmp_path, "oa.json", openapi)
    result = CliRunner().invoke(main, ["tools", "import", str(broken), "--db", str(db_path)])
    assert_clean_error(result, 1, "'#/components/responses/Nope' points nowhere")


def test_tools_import_reads_a_yaml_openapi_document_and_reports_server_tools_skipped(
    tmp_path, db_path
):
    from test_contracts import ORDERS_OPENAPI_YAML

    (tmp_path / "orders.yaml").write_text(ORDERS_OPENAPI_YAML)
    tools = write(
        tmp_path,
        "tools.json",
        [
            {"type": "web_search_20250305", "name": "web_search"},
            {"name": "sendEmail", "description": "Send", "input_schema": {}},
        ],
    )
    result = run("tools", "import", tmp_path / "orders.yaml", tools, "--db", db_path)
    assert result.exit_code == 0, result.output
    assert "imported 2 tool contracts: findOrders, sendEmail" in result.output
    assert "skipped web_search (web_search_20250305)" in result.output
    assert (
        Store.open(db_path).get_tool("findOrders")["description"]
        == "Search a customer's orders, newest first."
    )


def test_tools_import_maps_operations_of_the_openapi_document_among_tool_definitions(
    tmp_path, db_path
):
    from test_contracts import ORDERS_OPENAPI_YAML

    (tmp_path / "orders.yaml").write_text(ORDERS_OPENAPI_YAML)
    arguments = {"type": "object", "properties": {"customerEmail": {"type": "string"}}}
    tools = write(
        tmp_path,
        "tools.json",
        [{"type": "function", "function": {"name": "searchOrders", "parameters": arguments}}],
    )
    result = run(
        "tools",
        "import",
        tools,
        tmp_path / "orders.yaml",
        "--operation",
        "searchOrders=findOrders",
        "--db",
        db_path,
    )
    assert result.exit_code == 0, result.output
    contract = Store.open(db_path).get_tool("searchOrders")
    assert contract["arguments_schema"] == arguments
    assert contract["request_schema"]["required"] == ["customer_email"]


def test_tools_import_refuses_a_tool_name_with_control_characters(tmp_path, db_path):
    tools = write(tmp_path, "tools.json", [{"name": "send\x1b[2JEmail", "input_schema": {}}])
    result = run("tools", "import", tools, "--db", db_path)
    assert_clean_error(result, 1, "printable")
    assert "\x1b" not in result.output and Store.open(db_path).list_tools() == []


def test_tools_import_of_an_operation_without_an_openapi_document_names_the_mistake(
    tmp_path, db_path
):
    tools = write(tmp_path, "tools.json", [{"name": "sendEmail", "input_schema": {}}])
    result = run("tools", "import", tools, "--operation", "sendEmail=send", "--db", db_path)
    assert_clean_error(result, 1, "operation mappings apply to OpenAPI documents only")
    assert Store.open(db_path).get_tool("sendEmail") is None


# A key a model or a server wrote: an OSC sequence that retitles the terminal, a CSI one that clears
# it, a carriage return that would overwrite the line, a tab that would add a column.
TERMINAL_CONTROLS = "k\x1b]0;owned\x07\x1b[2J\r\tx"


def test_problems_list_and_show_write_the_control_characters_of_a_payload_as_escapes(db_path):
    events = [
        envelope("arguments", {TERMINAL_CONTROLS: 5}),
        envelope("request", {TERMINAL_CONTROLS: "5"}),
    ]
    run("ingest", "-", "--db", db_path, input=ndjson(*events).decode())
    listed = run("problems", "list", "--db", db_path).output
    shown = run("problems", "show", listed.split("\t")[0], "--db", db_path).output
    for output in (listed, shown):
        assert "k\\u001b]0;owned\\u0007\\u001b[2J\\u000d\\u0009x" in output, output
        assert not {"\x1b", "\x07", "\r"} & set(output)
    # one problem, one line of ten tab-separated fields
    assert listed.count("\n") == 1 and listed.count("\t") == 9


def http_error_fixtures(tmp_path):
    args = write(tmp_path, "tool-args.json", {"customerEmail": "ana@example.com", "limit": 5})
    request = write(tmp_path, "http-body.json", {"customer_email": "ana@example.com", "limit": 5})
    error = write(
        tmp_path,
        "http-error.json",
        {"code": "rate_limited", "message": "Slow down", "retryable": True},
    )
    return [
        "--tool",
        "findOrders",
        "--contract",
        SAMPLES / "contracts" / "findOrders.json",
        "--arguments",
        args,
        "--request",
        request,
        "--response",
        error,
    ]


def test_check_without_status_assumes_none(tmp_path):
    result = run("check", *http_error_fixtures(tmp_path))
    assert result.exit_code == 0, result.output
    assert "status_mismatch" not in result.output
    assert run("check", *http_error_fixtures(tmp_path), "--status", 429).exit_code == 0
    mismatch = run("check", *http_error_fixtures(tmp_path), "--status", 200)
    assert mismatch.exit_code == 1 and "status_mismatch" in mismatch.output


def test_check_says_an_arguments_file_is_not_json(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("limit: 5\n")
    result = CliRunner().invoke(main, ["check", "--arguments", str(bad)])
    assert_clean_error(result, 2, f"Error: {bad} is not JSON")


def test_check_on_a_file_of_several_contracts_asks_for_tool_and_lists_them(tmp_path):
    args = write(tmp_path, "tool-args.json", {"amount": 5})
    result = CliRunner().invoke(
        main,
        [
            "check",
            "--contract",
            str(SAMPLES / "contracts" / "billing.openapi.json"),
            "--arguments",
            str(args),
        ],
    )
    assert_clean_error(result, 2, "choose one with --tool (createInvoice, getInvoice)")
    assert "None" not in result.output


def test_serve_and_ingest_with_a_database_that_cannot_be_opened_fail_in_one_line(tmp_path):
    events = write(tmp_path, "f.json", envelope())
    for args in (
        # a free port: with the default one taken, serve would say so first
        ["serve", "--port", free_port(), "--db", "/nonexistent/dir/x.db"],
        ["ingest", "--db", "/nonexistent/dir/x.db", events],
    ):
        result = CliRunner().invoke(main, [str(a) for a in args])
        assert_clean_error(result, 1, "Error: cannot open the database /nonexistent/dir/x.db")


def test_serve_refuses_a_port_out_of_range(db_path):
    result = CliRunner().invoke(main, ["serve", "--port", "99999", "--db", str(db_path)])
    assert_clean_error(
        result, 2, "Invalid value for '--port': 99999 is not in the range 1<=x<=65535"
    )


@pytest.mark.slow
def test_serve_says_the_port_is_in_use_before_announcing_itself(db_path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_process("serve", "--host", "127.0.0.1", "--port", port, "--db", db_path)
    assert_clean_error(result, 1, f"port {port} on 127.0.0.1 is already in use")
    assert "tracediff on http" not in result.stderr


# --- ingest of any size, compression and framing (QA pass) ----------------------------------


def big_events(count, size=2000, prefix=""):
    import base64
    import os

    return [
        envelope(
            trace_id=f"{prefix}{n:032x}"[-32:],
            payload={"note": base64.b64encode(os.urandom(size)).decode(), "n": n},
        )
        for n in range(count)
    ]


# A file past the progress bar's threshold is read through the bar's reader: the quick set lowers
# the threshold to see that path with a tenth of the events, the run marked slow keeps the real one.
@pytest.mark.parametrize(
    "count, progress_bytes",
    [
        pytest.param(30, 512 * 1024, id="quick"),
        pytest.param(300, PROGRESS_BYTES, id="thorough", marks=pytest.mark.slow),
    ],
)
def test_ingest_decompresses_gzip_and_zstd_files_before_framing(
    tmp_path, db_path, monkeypatch, count, progress_bytes
):
    import gzip

    import zstandard

    monkeypatch.setattr(webapp.pipeline.bulk, "PROGRESS_BYTES", progress_bytes)
    gzipped = tmp_path / "events.ndjson.gz"
    with gzip.open(gzipped, "wt") as handle:
        handle.writelines(orjson.dumps(e).decode() + "\n" for e in big_events(count, 20_000))
    assert gzipped.stat().st_size > progress_bytes
    result = run("ingest", gzipped, "--db", db_path)
    assert result.exit_code == 0, result.output
    assert f"accepted {count}, duplicates 0, rejected 0" in result.output
    framed = [zstandard.ZstdCompressor().compress(ndjson(e)) for e in big_events(3, 10, prefix="f")]
    (tmp_path / "two-frames.zst").write_bytes(b"".join(framed))
    assert (
        "accepted 3, duplicates 0, rejected 0"
        in run("ingest", tmp_path / "two-frames.zst", "--db", db_path).output
    )


def test_ingest_reads_a_big_pretty_printed_event_and_a_piped_pretty_array_whole(tmp_path, db_path):
    pretty = tmp_path / "one.json"
    pretty.write_text(
        json.dumps(
            envelope(payload={"items": [{"n": n, "text": "y" * 40} for n in range(60_000)]}),
            indent=2,
        )
    )
    assert pretty.stat().st_size > 4 * 1024 * 1024
    result = run("ingest", pretty, "--db", db_path)
    assert result.exit_code == 0 and "accepted 1, duplicates 0, rejected 0" in result.output, (
        result.output[:2000]
    )
    array = json.dumps(
        [envelope(trace_id=f"{n:032x}", payload={"n": n}) for n in range(300)], indent=2
    )
    assert array.count("\n") > 1000
    piped = run("ingest", "-", "--db", db_path, input=array)
    assert "accepted 300, duplicates 0, rejected 0" in piped.output, piped.output


def test_ingest_fails_a_file_whose_every_record_is_rejected(tmp_path, db_path):
    bad = tmp_path / "bad.ndjson"
    bad.write_bytes(ndjson(*[envelope(trace_id=f"{n:032x}", snapshot="nope") for n in range(3)]))
    good = write(tmp_path, "good.json", envelope())
    result = run("ingest", good, bad, "--db", db_path)
    assert result.exit_code == 1
    assert "accepted 1, duplicates 0, rejected 3" in result.output
    assert f"{bad}: every record was rejected (3); nothing stored" in result.output


def test_ingest_stores_more_events_than_one_http_request_in_batches_of_batch_size(
    tmp_path, db_path, monkeypatch
):
    import webapp.pipeline.bulk

    # one request takes at most 1,000 events here: the files hold 1,200 each, sent in batches of 500
    monkeypatch.setenv("TRACEDIFF_MAX_EVENTS", "1000")
    sizes = []
    store_batch = webapp.pipeline.bulk.store_batch
    monkeypatch.setattr(
        webapp.pipeline.bulk,
        "store_batch",
        lambda s, b, r, **k: sizes.append(len(b.events)) or store_batch(s, b, r, **k),
    )
    events = [envelope(trace_id=f"{n:032x}", payload={"n": n}) for n in range(1_200)]
    (tmp_path / "events.ndjson").write_bytes(ndjson(*events))
    result = run("ingest", tmp_path / "events.ndjson", "--db", db_path, "--batch-size", 500)
    assert "accepted 1200, duplicates 0, rejected 0" in result.output, result.output
    assert sizes == [500, 500, 200]
    sizes.clear()
    again = [envelope(trace_id=f"{n:032x}", payload={"m": n}) for n in range(1_200)]
    array = write(tmp_path, "events.json", again)
    result = run("ingest", array, "--db", db_path, "--batch-size", 500)
    assert "accepted 1200, duplicates 0, rejected 0" in result.output, result.output
    assert sizes == [500, 500, 200]
    assert Store.open(db_path).count_events() == 2_400


def test_ingest_numbers_rejections_by_record_and_line_in_the_file(tmp_path, db_path):
    lines = [orjson.dumps(envelope(trace_id=f"{n:032x}")).decode() for n in range(2500)]
    lines[1500:1500] = ["", "not json"]
    (tmp_path / "events.ndjson").write_text("\n".join(lines) + "\n")
    result = run("ingest", tmp_path / "events.ndjson", "--db", db_path, "--batch-size", 1000)
    assert "accepted 2500, duplicates 0, rejected 1" in result.output
    assert (
        "record 1501 (line 1502): not_json: not valid JSON: expected a JSON value at column 1"
        in result.output
    ), result.output
    items = [envelope(trace_id=f"{n:032x}") for n in range(3)]
    items[1]["snapshot"] = "nope"
    pretty = write(tmp_path, "pretty.json", [])
    pretty.write_text(json.dumps(items, indent=2))
    line = json.dumps(items, indent=2).splitlines().index("  {", 2) + 1
    result = run("ingest", pretty, "--db", db_path)
    assert f"record 2 (line {line}): " in result.output, result.output


def test_ingest_says_the_column_a_cut_line_broke_at_as_the_api_does(tmp_path, db_path, client):
    # a line cut short: the reason named "line 2, column 1", the newline after it, not column 57
    lines = [orjson.dumps(envelope(trace_id=f"{n:032x}")).decode() for n in range(3)]
    lines[1] = lines[1][:57]
    body = "\n".join(lines) + "\n"
    (tmp_path / "cut.ndjson").write_text(body)
    result = run("ingest", tmp_path / "cut.ndjson", "--db", db_path)
    said = client.post("/api/v1/ingest", data=body).get_json()["rejected"][0]["message"]
    assert said.endswith("unexpected end of data at column 58"), said
    assert (
        "record 2 (line 2): not_json: not valid JSON: unexpected end of data at column 58"
        in result.output
    ), result.output


def test_tools_import_names_the_file_a_definition_cannot_be_read_from(tmp_path, db_path):
    (tmp_path / "tools.json").write_text("[1, 2]")
    result = run("tools", "import", tmp_path / "tools.json", "--db", db_path)
    assert result.exit_code == 1
    assert f"{tmp_path / 'tools.json'}: item 0: expected a tool definition" in result.output


def test_tools_show_prints_the_stored_contract_as_json(db_path):
    run("tools", "import", SAMPLES / "contracts" / "findOrders.json", "--db", db_path)
    result = run("tools", "show", "findOrders", "--db", db_path)
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    assert shown["name"] == "findOrders" and "arguments_schema" in shown
    assert_clean_error(
        run("tools", "show", "nope", "--db", db_path), 1, "no contract for tool 'nope'"
    )


def test_tools_list_and_show_on_a_missing_database_say_so_and_do_not_create_it(tmp_path):
    missing = tmp_path / "missing.db"
    for args in (["tools", "list"], ["tools", "show", "findOrders"]):
        result = run(*args, "--db", missing)
        assert_clean_error(result, 1, f"there is no database at {missing}")
        assert not missing.exists()


@pytest.mark.parametrize(
    "args",
    [["reanalyze"], ["alerts", "list"], ["alerts", "remove", "1"], ["alerts", "test", "1"]],
)
def test_commands_that_read_a_missing_database_say_so_and_do_not_create_it(tmp_path, args):
    missing = tmp_path / "typo.db"
    assert_clean_error(run(*args, "--db", missing), 1, f"there is no database at {missing}")
    assert not missing.exists()


def test_a_setting_value_it_cannot_take_stops_the_cli_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("TRACEDIFF_REDACT", "enabled")
    result = CliRunner().invoke(main, ["tools", "list", "--db", str(tmp_path / "x.db")])
    assert result.exit_code == 1 and "TRACEDIFF_REDACT='enabled'" in result.output
    assert "Traceback" not in result.output


def test_ingest_takes_the_clock_skew_and_depth_settings_as_the_api_does(
    tmp_path, db_path, monkeypatch
):
    from datetime import datetime, timedelta

    ahead = (datetime.now(UTC) + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    stamped = [dict(envelope(), ts=ahead, trace_id=f"{n:032x}") for n in range(2)]
    deep = dict(envelope(), trace_id="d" * 32, payload={"a": {"b": {"c": 1}}})
    (tmp_path / "lines.ndjson").write_bytes(ndjson(stamped[0], deep))
    (tmp_path / "array.json").write_bytes(orjson.dumps([stamped[1]], option=orjson.OPT_INDENT_2))
    monkeypatch.setenv("TRACEDIFF_MAX_CLOCK_SKEW_S", str(3 * 86400))
    monkeypatch.setenv("TRACEDIFF_MAX_DEPTH", "3")
    result = run("ingest", tmp_path / "lines.ndjson", tmp_path / "array.json", "--db", db_path)
    assert "accepted 2, duplicates 0, rejected 1" in result.output and "too_deep" in result.output
    store = Store.open(db_path)
    # three days of skew allowed: two days ahead is kept as sent
    for event in stamped:
        snapshot = store.get_trace(event["trace_id"])["calls"][0]["snapshots"]["arguments"]
        assert snapshot["ts"] == times.fixed(ahead) and not (snapshot.get("meta") or {}).get(
            "sent_ts"
        )


@pytest.mark.parametrize("text", ["garbage\n", "not json\n"])
def test_ingest_counts_a_file_where_nothing_parses_as_rejected(tmp_path, db_path, text):
    (tmp_path / "bad.txt").write_text(text)
    result = run("ingest", tmp_path / "bad.txt", "--db", db_path)
    assert result.exit_code == 1
    assert "accepted 0, duplicates 0, rejected 1" in result.output, result.output
    assert "nothing in the file parses as JSON" in result.output, result.output
    assert "body" not in result.output and "invalid literal" not in result.output
    stdin = run("ingest", "-", "--db", db_path, input=text)
    assert "rejected 1" in stdin.output and "expected a JSON value at column 1" in stdin.output


def test_ingest_of_an_empty_file_speaks_of_the_file(tmp_path, db_path):
    (tmp_path / "empty.json").write_text("")
    result = run("ingest", tmp_path / "empty.json", "--db", db_path)
    assert result.exit_code == 1 and "the file is empty" in result.output, result.output
    assert "body" not in result.output
