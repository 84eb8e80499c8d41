"""The result on the way out of the app.

`tracediff check --result`, the fixtures zip, the Markdown, the tool page."""

import io
import json
import shlex
import zipfile

import pytest
from click.testing import CliRunner
from helpers import TRACE, envelope, ndjson, order_call

from webapp.cli import main

RATE_LIMITED = {
    "error": {"code": "rate_limited", "message": "Too many requests", "retryable": True}
}


def write(folder, name, value) -> str:
    path = folder / name
    path.write_text(value if isinstance(value, str) else json.dumps(value))
    return str(path)


def check(*args):
    return CliRunner().invoke(main, ["check", *map(str, args)])


def test_check_result_flags_an_error_swallowed_into_a_success_text(tmp_path):
    response = write(tmp_path, "http-response.json", RATE_LIMITED)
    # a text file: read as text
    result = write(tmp_path, "tool-result.json", "No orders found.")
    swallowed = check("--response", response, "--status", 503, "--result", result)
    assert swallowed.exit_code == 1 and "error_hidden" in swallowed.output
    told = write(
        tmp_path,
        "told.json",
        {"content": [{"type": "text", "text": "rate_limited, retry later"}], "isError": True},
    )
    assert check("--response", response, "--status", 503, "--result", told).exit_code == 0


def test_check_without_result_reports_as_before(tmp_path):
    response = write(tmp_path, "http-response.json", RATE_LIMITED)
    plain = check("--response", response, "--status", 503, "--json")
    assert plain.exit_code == 0
    assert set(json.loads(plain.output)["validation"]) == {"arguments", "request", "response"}


def test_a_fixture_folder_with_a_tool_result_is_checked_with_it(tmp_path):
    write(tmp_path, "http-response.json", RATE_LIMITED)
    write(tmp_path, "call.json", {"tool": "findOrders", "status": 503})
    write(tmp_path, "tool-result.json", json.dumps("Error rate_limited: Too many requests."))
    outcome = check(tmp_path)
    assert outcome.exit_code == 1 and "dropped" in outcome.output and "retryable" in outcome.output


def post_call_with_result(client, result, **extra):
    calls = order_call()
    calls[2] = envelope(
        "response", RATE_LIMITED, ts="2026-11-20T09:00:02Z", http={"status_code": 503}
    )
    calls.append(envelope("result", result, ts="2026-11-20T09:00:03Z", **extra))
    assert client.post("/api/v1/ingest", data=ndjson(*calls)).status_code == 200


def zipped(client) -> dict:
    response = client.get(f"/traces/{TRACE}/fixtures.zip?call=call_01")
    with zipfile.ZipFile(io.BytesIO(response.data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_the_fixtures_zip_holds_the_result_and_replays_its_finding(client, tmp_path):
    post_call_with_result(client, "No orders found.", is_error=False)
    files = zipped(client)
    assert json.loads(files["tool-result.json"]) == "No orders found."
    assert json.loads(files["call.json"])["result_is_error"] is False
    assert "--result tool-result.json" in files["README.md"].decode()
    for name, content in files.items():
        (tmp_path / name).write_bytes(content)
    replay = check(tmp_path)
    assert replay.exit_code == 1 and "error_hidden" in replay.output


@pytest.mark.parametrize(
    "status,response,result,told,verdict",
    [
        # the code said, "success" told
        (503, RATE_LIMITED, "rate_limited: try again later", False, "error_hidden"),
        # a failure told over orders found (over none, "nothing found" is the layer's word)
        (
            200,
            {"orders": [{"id": "ord_1"}], "total": 1},
            "No orders found.",
            True,
            "error_invented",
        ),
        (503, RATE_LIMITED, "rate_limited: try again later", True, None),
    ],
)
def test_the_fixtures_replay_file_by_file_as_the_folder_does(
    client, tmp_path, monkeypatch, status, response, result, told, verdict
):
    calls = order_call()
    calls[1]["http"]["headers"] = {"Idempotency-Key": "key_1"}
    calls[2] = envelope(
        "response", response, ts="2026-11-20T09:00:02Z", http={"status_code": status}
    )
    calls.append(envelope("result", result, ts="2026-11-20T09:00:03Z", is_error=told))
    assert client.post("/api/v1/ingest", data=ndjson(*calls)).status_code == 200
    files = zipped(client)
    for name, content in files.items():
        (tmp_path / name).write_bytes(content)
    [command] = [
        line.strip()
        for line in files["README.md"].decode().splitlines()
        if "tracediff check --" in line
    ]
    assert (
        f"--result-is-error {str(told).lower()}" in command
        and "--header 'Idempotency-Key: key_1'" in command
    )
    monkeypatch.chdir(tmp_path)
    by_files, by_folder = check(*shlex.split(command)[2:]), check(tmp_path)
    assert by_files.exit_code == by_folder.exit_code == (1 if verdict else 0)
    assert verdict is None or (verdict in by_files.output and verdict in by_folder.output)


def test_result_is_error_needs_a_result_file(tmp_path):
    response = write(tmp_path, "http-response.json", RATE_LIMITED)
    refused = check("--response", response, "--result-is-error", "true")
    assert refused.exit_code == 2 and "--result" in refused.output


def test_a_call_without_a_result_zips_no_result_file(client):
    assert client.post("/api/v1/ingest", data=ndjson(*order_call())).status_code == 200
    assert "tool-result.json" not in zipped(client)


def test_the_markdown_export_says_what_the_model_got_and_the_finding(client):
    post_call_with_result(client, "No orders found.")
    text = client.get(f"/traces/{TRACE}.md").get_data(as_text=True)
    assert "Result given to the model: 18 bytes" in text and "error_hidden" in text


def test_the_tool_page_counts_the_way_backs_findings(client):
    post_call_with_result(client, "No orders found.")
    # analysed on read
    client.get(f"/traces/{TRACE}")
    data = client.get("/tools/findOrders.json").get_json()
    assert data["way_back"] == {
        "calls": 1,
        "with_result": 1,
        "error_hidden": 1,
        "error_invented": 0,
        "result_large": 0,
    }
    html = client.get("/tools/findOrders").get_data(as_text=True)
    assert "The way back" in html and "1 of 1 calls logged the result" in html


def test_the_way_backs_findings_group_into_problems_by_their_stages(client):
    post_call_with_result(client, "No orders found.")
    # analysed on read, grouped into problems
    client.get(f"/traces/{TRACE}")
    problems = client.get("/problems.json").get_json()["problems"]
    hidden = [p for p in problems if p["kind"] == "error_hidden"]
    assert len(hidden) == 1 and hidden[0]["stages"] == "response>result"
    assert hidden[0]["left"] == {"snapshot": "response", "path": "/error"}


def test_a_retryable_lost_is_a_problem_of_the_way_back(client):
    post_call_with_result(
        client, {"content": [{"type": "text", "text": "rate_limited"}], "isError": True}
    )
    client.get(f"/traces/{TRACE}")
    [problem] = [
        p for p in client.get("/problems.json").get_json()["problems"] if p["kind"] == "dropped"
    ]
    assert problem["stages"] == "response>result" and problem["left"]["path"] == "/error/retryable"
    ticket = client.get(f"/problems/{problem['id']}.md").get_data(as_text=True)
    assert "dropped on the way to the result" in ticket


def test_compare_shows_the_results_of_two_calls(client):
    post_call_with_result(client, "No orders found.")
    html = client.get(f"/compare?a={TRACE}&b={TRACE}&ca=call_01&cb=call_01").get_data(as_text=True)
    assert "result" in html and "No orders found." in html


def test_a_result_only_fixtures_zip_is_checked_as_a_folder_as_its_command_checks_it(
    client, tmp_path, monkeypatch
):
    only_result = envelope("result", {"orders": [], "total": 0}, ts="2026-11-20T09:00:03Z")
    assert client.post("/api/v1/ingest", data=ndjson(only_result)).status_code == 200
    files = zipped(client)
    assert {"tool-result.json", "call.json"} <= set(files) and "tool-args.json" not in files
    for name, content in files.items():
        (tmp_path / name).write_bytes(content)
    [command] = [
        line.strip()
        for line in files["README.md"].decode().splitlines()
        if "tracediff check --" in line
    ]
    monkeypatch.chdir(tmp_path)
    by_files, by_folder = check(*shlex.split(command)[2:]), check(tmp_path)
    assert by_files.exit_code == by_folder.exit_code == 0, by_folder.output
    assert f"PASS   {tmp_path}" in by_folder.output


def test_a_folder_without_fixtures_names_every_fixture_file(tmp_path):
    refused = check(tmp_path)
    assert refused.exit_code == 2 and "tool-result.json" in refused.output
