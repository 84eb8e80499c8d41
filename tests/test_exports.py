"""Exports for tickets.

The Markdown summary, the JSON twin and the fixtures zip."""

import hashlib
import io
import json
import re
import shlex
import zipfile

import pytest
from click.testing import CliRunner
from helpers import envelope, ndjson

from webapp import pipeline
from webapp.cli import main
from webapp.store import Store

LIMIT_AS_STRING = hashlib.sha256(b"tracediff-sample/02-orders-limit-as-string.ndjson").hexdigest()[
    :32
]
BROKEN_JSON = hashlib.sha256(b"tracediff-sample/12-search-request-broken-json.ndjson").hexdigest()[
    :32
]


def test_the_markdown_summary_names_the_trace_findings_paths_values_and_permalink(client, samples):
    response = client.get(f"/traces/{LIMIT_AS_STRING}.md")
    text = response.get_data(as_text=True)
    assert response.mimetype == "text/markdown"
    assert f"trace `{LIMIT_AS_STRING}`" in text and "findOrders" in text
    link = f"http://localhost/traces/{LIMIT_AS_STRING}?call=call_01#f-type_changed-arguments/limit-request/limit"
    problem = client.get(f"/api/v1/traces/{LIMIT_AS_STRING}").get_json()["calls"][0]["findings"][0][
        "problem"
    ]
    assert (
        f"| error | [type\\_changed](<{link}>) | `arguments /limit` -> `request /limit` | `5 -> "
        '"5"` | '
        f"[{problem}](<http://localhost/problems/{problem}>) |" in text
    )
    assert "request /limit: '5' is not of type 'integer'" in text
    assert f"http://localhost/traces/{LIMIT_AS_STRING}?call=call_01" in text


def test_the_json_twin_is_the_trace_the_api_returns(client, samples):
    page_twin = client.get(f"/traces/{LIMIT_AS_STRING}.json").get_json()
    assert page_twin == client.get(f"/api/v1/traces/{LIMIT_AS_STRING}").get_json()
    assert page_twin["calls"][0]["findings"][0]["kind"] == "type_changed"


def fixture_files(client, trace_id) -> dict[str, bytes]:
    response = client.get(f"/traces/{trace_id}/fixtures.zip?call=call_01")
    assert (
        response.mimetype == "application/zip"
        and "attachment" in response.headers["Content-Disposition"]
    )
    with zipfile.ZipFile(io.BytesIO(response.data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_the_fixtures_zip_holds_the_three_snapshots_the_contract_and_the_check_command(
    client, samples
):
    files = fixture_files(client, LIMIT_AS_STRING)
    assert set(files) == {
        "tool-args.json",
        "http-body.json",
        "http-response.json",
        "contract.json",
        "call.json",
        "README.md",
    }
    trace = client.get(f"/api/v1/traces/{LIMIT_AS_STRING}").get_json()["calls"][0]
    # the request's method, URL and headers, as stored
    request_http = trace["snapshots"]["request"]["http"]
    assert json.loads(files["call.json"]) == {
        "tool": "findOrders",
        "status": 200,
        "http": {"method": "POST", "url": request_http["url"], "headers": request_http["headers"]},
    }
    assert json.loads(files["http-body.json"]) == trace["snapshots"]["request"]["payload"]
    assert json.loads(files["contract.json"])["name"] == "findOrders"
    assert (
        "tracediff check --contract contract.json --arguments tool-args.json --request "
        "http-body.json "
        "--response http-response.json --status 200 --method POST --url "
        "https://api.example.com/v1/orders/search"
    ) in files["README.md"].decode()


def test_the_fixtures_replay_the_same_finding_with_tracediff_check(client, samples, tmp_path):
    for name, content in fixture_files(client, LIMIT_AS_STRING).items():
        (tmp_path / name).write_bytes(content)
    command = shlex.split((tmp_path / "README.md").read_text().strip().splitlines()[-1])[2:]
    result = CliRunner().invoke(
        main, ["check", *[str(tmp_path / a) if a.endswith(".json") else a for a in command]]
    )
    assert result.exit_code == 1
    assert "type_changed" in result.output and "request /limit" in result.output


def test_a_request_logged_as_broken_json_is_written_as_it_was_sent(client, samples):
    body = fixture_files(client, BROKEN_JSON)["http-body.json"].decode()
    with pytest.raises(json.JSONDecodeError):
        json.loads(body)
    assert body.rstrip().endswith("}")


def test_exports_of_an_unknown_trace_or_call_are_404(client, samples):
    assert client.get("/traces/nope.md").status_code == 404
    assert client.get(f"/traces/{LIMIT_AS_STRING}/fixtures.zip?call=nope").status_code == 404


def test_the_markdown_summary_keeps_hostile_names_inert(client):
    client.post(
        "/api/v1/ingest",
        json={
            "trace_id": "md1",
            "call_id": "c 1#x",
            "snapshot": "request",
            "tool": "<svg onload=alert(6)>[x](http://evil)",
            "payload": {"note": "a\u202eb"},
        },
    )
    text = client.get("/traces/md1.md").get_data(as_text=True)
    assert "?call=c+1%23x>" in text
    assert not re.search(r"(?<!\\)<svg", text)
    assert "\\<svg onload=alert\\(6\\)\\>\\[x\\]\\(http://evil\\)" in text
    assert "\u202e" not in text


HOSTILE_TOOL = "md`x|y [click](javascript:alert(1)) *b* _i_ # <img src=x> &lt;"


def rendered(markdown: str) -> str:
    """Render Markdown as GitHub-like ticket systems do (CommonMark and tables)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").render(markdown)


def test_hostile_tool_names_paths_and_values_stay_text_and_each_finding_links_its_problem(
    client, store
):
    from webapp import pipeline

    store.put_tool(
        HOSTILE_TOOL, {"arguments_schema": {"type": "object"}, "request_schema": {"type": "object"}}
    )
    common = {"trace_id": "md2", "call_id": "c`1", "tool": HOSTILE_TOOL}
    key = "a``b|c [l](javascript:x)"
    client.post(
        "/api/v1/ingest",
        data="\n".join(
            json.dumps(e)
            for e in (
                {**common, "snapshot": "arguments", "payload": {key: 5}},
                {**common, "snapshot": "request", "payload": {key: "5"}},
            )
        ),
    )
    pipeline.catch_up(store)
    text = client.get("/traces/md2.md").get_data(as_text=True)
    html = rendered(text)
    # in no attribute: only as text
    assert "javascript:" not in re.sub(r">[^<]*<", "><", html)
    assert "<img" not in html and "<em>" not in html and "<strong>" not in html
    heading = re.search(r"<h3>(.*?)</h3>", html).group(1)
    assert heading.startswith(
        "md`x|y [click](javascript:alert(1)) *b* _i_ # &lt;img src=x&gt; &amp;lt;"
    )
    assert "<code>c`1</code>" in heading
    row = re.search(r"<tr>\s*<td>warning</td>.*?</tr>", html, re.S).group(0)
    # the | of the path splits no cell
    assert row.count("<td>") == 6
    assert "<code>arguments /a``b|c [l](javascript:x)</code>" in row
    problem = client.get("/api/v1/traces/md2").get_json()["calls"][0]["findings"][0]["problem"]
    assert f'<a href="http://localhost/problems/{problem}">{problem}</a>' in row


INFERRED_TOOL = "bookTableInf"


def booking(n: int, adults: int, children: int, sent: tuple[int, int]) -> list[dict]:
    """One bookTableInf call: adults -> party_size and children -> kids, renames only inference can
    pair."""
    trace = f"b2b2{n:028x}"
    ts = f"2026-11-20T09:{n:02d}:00Z"
    return [
        envelope(
            "arguments",
            {"adults": adults, "children": children},
            trace,
            "c1",
            tool=INFERRED_TOOL,
            ts=ts,
        ),
        envelope(
            "request",
            {"party_size": sent[0], "kids": sent[1]},
            trace,
            "c1",
            tool=INFERRED_TOOL,
            ts=ts,
            http={"method": "POST", "url": "https://api.example.com/bookings"},
        ),
    ]


@pytest.fixture
def inferred_calls(client, db_path):
    """29 correct calls, so adults -> party_size and children -> kids are inferred, then two more
    analysed under those pairs: one that swapped the values (two value_changed warnings, reason
    inferred) and a correct one."""
    calls = [booking(n, 2 + n % 5, 1 + n % 3, (2 + n % 5, 1 + n % 3)) for n in range(29)]
    assert client.post("/api/v1/ingest", data=ndjson(*sum(calls, []))).status_code == 200
    store = Store.open(db_path)
    pipeline.catch_up(store)
    assert {("/adults", "/party_size"), ("/children", "/kids")} <= set(
        map(tuple, store.inferred_pairs(INFERRED_TOOL))
    )
    later = booking(29, 2, 3, (3, 2)) + booking(30, 4, 1, (4, 1))
    assert client.post("/api/v1/ingest", data=ndjson(*later)).status_code == 200
    pipeline.catch_up(store)
    store.close()
    return {"swapped": f"b2b2{29:028x}", "correct": f"b2b2{30:028x}"}


def replayed(client, trace_id, folder, monkeypatch) -> tuple:
    """Unzip a call's fixtures into folder; return (the server's findings, check FOLDER, the printed
    command)."""
    response = client.get(f"/traces/{trace_id}/fixtures.zip?call=c1")
    folder.mkdir()
    with zipfile.ZipFile(io.BytesIO(response.data)) as archive:
        archive.extractall(folder)
    readme = (folder / "README.md").read_text().splitlines()
    [command] = [line.strip() for line in readme if "tracediff check --" in line]
    monkeypatch.chdir(folder)
    runner = CliRunner()
    by_folder = runner.invoke(main, ["check", str(folder), "--format", "json"])
    by_files = runner.invoke(main, ["check", *shlex.split(command)[2:], "--format", "json"])
    server = client.get(f"/api/v1/traces/{trace_id}").get_json()["calls"][0]["findings"]
    return server, by_folder, by_files


def shown(findings) -> list[tuple]:
    return sorted(
        (f["kind"], f["severity"], f.get("reason"), f["left"]["path"], f["right"]["path"])
        for f in findings
    )


def test_a_fixture_of_a_call_flagged_through_inferred_pairs_replays_to_the_same_findings(
    client, inferred_calls, tmp_path, monkeypatch
):
    server, by_folder, by_files = replayed(
        client, inferred_calls["swapped"], tmp_path / "swapped", monkeypatch
    )
    assert shown(f for f in server if f["severity"] == "warning") == [
        ("value_changed", "warning", "inferred", "/adults", "/party_size"),
        ("value_changed", "warning", "inferred", "/children", "/kids"),
    ]
    assert by_folder.exit_code == by_files.exit_code == 1
    contract = json.loads((tmp_path / "swapped" / "contract.json").read_text())
    assert {"arguments": "/adults", "request": "/party_size", "inferred": True} in contract[
        "mapping"
    ]
    [folder_call] = json.loads(by_folder.output)["calls"]
    assert (
        shown(folder_call["result"]["findings"])
        == shown(json.loads(by_files.output)["findings"])
        == shown(server)
    )


def test_a_fixture_of_a_correct_call_under_inferred_pairs_still_passes(
    client, inferred_calls, tmp_path, monkeypatch
):
    server, by_folder, by_files = replayed(
        client, inferred_calls["correct"], tmp_path / "correct", monkeypatch
    )
    assert not [f for f in server if f["severity"] != "info"]
    assert by_folder.exit_code == by_files.exit_code == 0


def test_the_markdown_counts_findings_in_the_plural(client, samples):
    text = client.get(f"/traces/{LIMIT_AS_STRING}.md").get_data(as_text=True)
    counts = re.findall(r"\b(\d+) (errors?|warnings?)\b", text)
    assert counts and all((n == "1") == (not word.endswith("s")) for n, word in counts), counts


def test_the_markdown_of_a_call_missing_stages_says_they_never_arrived(client, store, samples):
    # arguments alone: "0 errors, 0 warnings" would read as a clean call in a ticket
    client.post("/api/v1/ingest", data=ndjson(envelope(trace_id="f" * 32)))
    pipeline.catch_up(store)
    text = client.get(f"/traces/{'f' * 32}.md").get_data(as_text=True)
    assert "- Not received: request and response (nothing to compare there)" in text, text
    complete = client.get(f"/traces/{LIMIT_AS_STRING}.md").get_data(as_text=True)
    assert "Not received" not in complete
