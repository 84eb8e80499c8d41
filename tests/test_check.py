"""`tracediff check` in a user's CI.

Every contract shape, exit codes 0/1/2, folders of fixtures, JUnit, GitHub."""

import hashlib
import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner

from webapp.cli import main
from webapp.common.words import counted
from webapp.reports.text import format_check

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_traces"
SCHEMA = {"type": "object", "properties": {"limit": {"type": "integer"}}}
# the body of PUT /api/v1/tools/findOrders
BARE = {"arguments_schema": SCHEMA, "request_schema": SCHEMA}


def write(folder: Path, name: str, value) -> str:
    path = folder / name
    path.write_text(value if isinstance(value, str) else json.dumps(value))
    return str(path)


def check(*args):
    return CliRunner().invoke(main, ["check", *map(str, args)])


def one_line_error(result, code: int, words: str) -> None:
    """Exit `code` with one line that says `words`, and no traceback."""
    assert result.exit_code == code, result.output
    assert result.output.strip().count("\n") == 0 and words in result.output, result.output
    assert "Traceback" not in result.output


@pytest.fixture
def call(tmp_path):
    """Fixture files of a findOrders call: the arguments, a clean request and one that sent a
    string."""
    return {
        "args": write(tmp_path, "tool-args.json", {"limit": 5}),
        "good": write(tmp_path, "http-body.json", {"limit": 5}),
        "bad": write(tmp_path, "http-body-bad.json", {"limit": "5"}),
    }


# --- every contract shape: exit 0 when clean, 1 on a finding ------------------------------------


@pytest.mark.parametrize("tool", [None, "findOrders"])
def test_a_bare_contract_the_body_of_a_put_is_checked_with_or_without_tool(tmp_path, call, tool):
    contract = write(tmp_path, "contract.json", BARE)
    options = ["--contract", contract, "--arguments", call["args"]] + (
        ["--tool", tool] if tool else []
    )
    assert check(*options, "--request", call["good"]).exit_code == 0
    failing = check(*options, "--request", call["bad"])
    assert failing.exit_code == 1
    assert (
        "type_changed" in failing.output
        and "request /limit: '5' is not of type 'integer'" in failing.output
    )


def test_a_named_contract_and_a_list_of_tool_definitions_are_checked(tmp_path, call):
    named = write(tmp_path, "named.json", {"name": "findOrders", **BARE})
    assert (
        check("--contract", named, "--arguments", call["args"], "--request", call["good"]).exit_code
        == 0
    )
    assert (
        check("--contract", named, "--arguments", call["args"], "--request", call["bad"]).exit_code
        == 1
    )
    tools = SAMPLES / "contracts" / "anthropic-tools.json"
    args = write(tmp_path, "find-args.json", {"customerEmail": "ana@example.com", "limit": "5"})
    result = check("--contract", tools, "--tool", "findOrders", "--arguments", args)
    assert (
        result.exit_code == 1 and "arguments /limit: '5' is not of type 'integer'" in result.output
    )


@pytest.mark.parametrize(
    "contract, words",
    [
        ("limit: [", "not JSON"),
        ({"arguments_schema": {"type": "integr"}}, "contract for"),
        ({"arguments_schema": SCHEMA, "colour": "red"}, "unknown contract fields ['colour']"),
        (
            [{"name": "a", "arguments_schema": SCHEMA}, {"name": "b", "arguments_schema": SCHEMA}],
            "holds contracts for 2 tools; choose one with --tool (a, b)",
        ),
    ],
)
def test_a_contract_that_cannot_be_used_exits_2_in_one_line(tmp_path, call, contract, words):
    path = write(tmp_path, "contract.json", contract)
    one_line_error(check("--contract", path, "--arguments", call["args"]), 2, words)


def test_a_tool_the_contract_file_lacks_exits_2_naming_the_ones_it_has(tmp_path, call):
    path = write(tmp_path, "named.json", {"name": "findOrders", **BARE})
    one_line_error(
        check("--contract", path, "--tool", "sendEmail", "--arguments", call["args"]),
        2,
        "has no contract for tool 'sendEmail'; it has: findOrders",
    )


def test_arguments_that_are_not_json_exit_2_in_one_line(tmp_path):
    one_line_error(
        check("--arguments", write(tmp_path, "a.json", "limit: 5")), 2, "a.json is not JSON"
    )


def test_usage_errors_exit_2_in_one_line(tmp_path, call):
    one_line_error(
        check(),
        2,
        "give fixture FOLDERS, or at least one of --arguments, --request, --url, "
        "--response, --result",
    )
    one_line_error(
        check("--arguments", tmp_path / "missing.json"), 2, "missing.json' does not exist"
    )
    one_line_error(check(tmp_path, "--arguments", call["args"]), 2, "not both")
    one_line_error(check("--arguments", call["args"], "--format", "xml"), 2, "'xml' is not one of")
    one_line_error(
        check("--arguments", call["args"], "--status", 999), 2, "999 is not in the range"
    )


def test_a_bad_request_body_is_a_finding_not_an_input_error(tmp_path, call):
    broken = write(tmp_path, "broken.json", '{"limit": 5')
    result = check(
        "--contract",
        write(tmp_path, "c.json", BARE),
        "--arguments",
        call["args"],
        "--request",
        broken,
    )
    assert result.exit_code == 1 and "invalid_json" in result.output


# --- folders of fixtures, as the fixtures zip lays them out -------------------------------------


def sample_calls(store) -> list[tuple[str, str]]:
    """(trace id, call id) of every call of the sample traces."""
    calls = []
    for path in sorted(SAMPLES.glob("*.ndjson")):
        trace_id = hashlib.sha256(f"tracediff-sample/{path.name}".encode()).hexdigest()[:32]
        calls += [(trace_id, c["call_id"]) for c in store.get_trace(trace_id)["calls"]]
    return calls


@pytest.fixture
def fixture_folders(client, samples, tmp_path):
    """Every sample call's fixtures zip, unpacked into a folder of its own; {folder: the stored
    call}."""
    store, folders = samples, {}
    for trace_id, call_id in sample_calls(store):
        response = client.get(f"/traces/{trace_id}/fixtures.zip?call={call_id}")
        assert response.status_code == 200
        folder = tmp_path / "fixtures" / f"{trace_id[:8]}-{call_id}"
        zipfile.ZipFile(io.BytesIO(response.data)).extractall(folder)
        folders[folder] = next(
            c for c in store.get_trace(trace_id)["calls"] if c["call_id"] == call_id
        )
    return folders


def fails(call: dict) -> bool:
    summary = call["summary"]
    return bool(summary["error"] or summary["warning"] or summary["validation_errors"])


def test_checking_the_folders_of_every_sample_call_gives_the_verdicts_of_the_stored_analysis(
    fixture_folders, tmp_path
):
    junit = tmp_path / "report.xml"
    result = check(tmp_path / "fixtures", "--junit", junit)
    failing = sorted(str(folder) for folder, call in fixture_folders.items() if fails(call))
    assert failing and len(failing) < len(fixture_folders)
    assert result.exit_code == 1, result.output
    shown = sorted(
        line.split(None, 1)[1] for line in result.output.splitlines() if line.startswith("FAIL ")
    )
    assert shown == failing
    passed = len(fixture_folders) - len(failing)
    assert (
        f"{len(fixture_folders)} calls: {passed} passed, {len(failing)} failed, 0 could not be "
        "checked" in result.output
    )
    suite = ElementTree.parse(junit).getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == (
        str(len(fixture_folders)),
        str(len(failing)),
        "0",
    )
    assert (
        sorted(
            case.get("name") for case in suite.iter("testcase") if case.find("failure") is not None
        )
        == failing
    )


def test_github_format_annotates_the_fixture_file_of_each_failing_finding(
    fixture_folders, tmp_path
):
    limit_as_string = hashlib.sha256(
        b"tracediff-sample/02-orders-limit-as-string.ndjson"
    ).hexdigest()[:8]
    folder = tmp_path / "fixtures" / f"{limit_as_string}-call_01"
    result = check(folder, "--format", "github")
    assert result.exit_code == 1
    lines = result.output.splitlines()
    body = f"{folder}/http-body.json".replace(":", "%3A").replace(",", "%2C")
    # where the annotation lands in the diff
    limit_line = next(
        n
        for n, text in enumerate((folder / "http-body.json").read_text().splitlines(), 1)
        if text.strip().startswith('"limit":')
    )
    assert f"::error file={body},line={limit_line},title=type_changed::" in result.output
    assert (
        f"::error file={body},line={limit_line},title=schema::request /limit: '5' is not of type "
        "'integer'" in lines
    )
    # info findings do not fail, nor annotate
    assert not any(line.startswith("::notice") for line in lines)
    assert lines[-1] == "1 call: 0 passed, 1 failed, 0 could not be checked"


def test_a_broken_folder_is_reported_and_the_others_still_checked_then_exit_2(
    fixture_folders, tmp_path
):
    broken = sorted(fixture_folders)[0]
    (broken / "contract.json").write_text("{not json")
    junit = tmp_path / "report.xml"
    result = check(tmp_path / "fixtures", "--junit", junit, "--format", "github")
    assert result.exit_code == 2
    assert f"::error file={broken}/contract.json,title=tracediff check::" in result.output
    assert (
        f"{len(fixture_folders)} calls:" in result.output
        and "1 could not be checked" in result.output
    )
    errors = [
        case
        for case in ElementTree.parse(junit).getroot().iter("testcase")
        if case.find("error") is not None
    ]
    assert [case.get("name") for case in errors] == [str(broken)]


def test_a_folder_without_fixtures_exits_2(tmp_path):
    one_line_error(check(tmp_path), 2, "holds no fixture folder")


def test_a_folder_without_fixtures_beside_others_is_reported_and_the_others_still_checked(
    fixture_folders, tmp_path
):
    # a CI glob (`fixtures/*`) easily names an empty folder: the others are still checked
    empty = tmp_path / "empty"
    empty.mkdir()
    junit = tmp_path / "report.xml"
    result = check(tmp_path / "fixtures", empty, "--junit", junit)
    assert result.exit_code == 2, result.output
    assert f"{empty} holds no fixture folder" in result.output
    assert f"{len(fixture_folders) + 1} calls:" in result.output, result.output
    assert "1 could not be checked" in result.output
    names = [case.get("name") for case in ElementTree.parse(junit).getroot().iter("testcase")]
    assert str(empty) in names and len(names) == len(fixture_folders) + 1


def test_folders_share_one_contract_file_and_each_call_json_picks_its_tool(tmp_path):
    for name, limit in (("clean", 5), ("sent-a-string", "5")):
        folder = tmp_path / name
        folder.mkdir()
        write(folder, "tool-args.json", {"customerEmail": "ana@example.com", "limit": 5})
        write(folder, "http-body.json", {"customer_email": "ana@example.com", "limit": limit})
        write(folder, "call.json", {"tool": "findOrders", "status": None})
    result = check(
        tmp_path, "--contract", SAMPLES / "contracts" / "anthropic-tools.json", "--format", "json"
    )
    assert result.exit_code == 1
    outcomes = {Path(c["folder"]).name: c["outcome"] for c in json.loads(result.output)["calls"]}
    assert outcomes == {"clean": "passed", "sent-a-string": "failed"}


def test_a_folder_of_arguments_alone_says_only_they_were_checked_not_a_bare_pass(tmp_path):
    folder = tmp_path / "args-only"
    folder.mkdir()
    write(folder, "tool-args.json", {"limit": 5})
    contract = write(tmp_path, "contract.json", {"name": "findOrders", **BARE})
    result = check(tmp_path, "--contract", contract)
    # clean is still exit 0, as docs/cli.md says; the line says what was not checked
    assert result.exit_code == 0, result.output
    verdict = result.output.splitlines()[0]
    assert verdict == f"PASS   {folder} (checked arguments only: request and response not given)"
    whole = tmp_path / "whole"
    whole.mkdir()
    write(whole, "tool-args.json", {"limit": 5})
    write(whole, "http-body.json", {"limit": 5})
    write(whole, "http-response.json", {"orders": []})
    assert f"PASS   {whole}\n" in check(whole, "--contract", contract).output
    folders = json.loads(check(tmp_path, "--contract", contract, "--format", "json").output)
    given = {Path(c["folder"]).name: c["not_given"] for c in folders["calls"]}
    assert given == {"args-only": ["request", "response"], "whole": []}


def test_arguments_alone_say_only_they_were_checked(tmp_path, call):
    contract = write(tmp_path, "contract.json", {"name": "findOrders", **BARE})
    result = check("--arguments", call["args"], "--contract", contract)
    assert result.exit_code == 0
    assert "checked arguments only: request and response not given" in result.output


# --- start-up: what `import webapp.cli` and `check` load ------------------------------------------


def loaded_modules(code: str) -> set[str]:
    """Run code in a fresh interpreter; return the top-level modules it imported."""
    script = (
        f"import sys\n{code}\nprint(' '.join(sorted({{m.split('.')[0] for m in sys.modules}})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr
    return set(out.stdout.split())


HEAVY = {
    "flask",
    "werkzeug",
    "jinja2",
    "sqlite_utils",
    "gunicorn",
    "jsonschema",
    "referencing",
    "yaml",
    "rfc3987_syntax",
    "lark",
    "isoduration",
    "webcolors",
}


@pytest.mark.slow
def test_the_command_line_imports_no_web_stack_and_no_python_validator_to_start():
    assert not loaded_modules("import webapp.cli") & HEAVY
    help_run = (
        "from webapp.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass"
    )
    assert not loaded_modules(help_run) & HEAVY


@pytest.mark.slow
def test_checking_a_clean_call_loads_no_web_stack_nor_python_validator(tmp_path, call):
    contract = write(
        tmp_path,
        "contract.json",
        {"name": "findOrders", **BARE, "mapping": [{"arguments": "/limit", "request": "/limit"}]},
    )
    run = (
        f"from webapp.cli import main\ntry:\n    main(['check', '--contract', {contract!r},"
        f" '--arguments', {call['args']!r}, '--request', {call['good']!r}])\nexcept SystemExit as "
        "e:\n"
        "    assert e.code == 0, e.code"
    )
    assert not loaded_modules(run) & HEAVY


@pytest.mark.slow
def test_checking_a_failing_call_loads_the_python_validator_without_its_slow_format_libraries(
    tmp_path, call
):
    contract = write(tmp_path, "contract.json", BARE)
    run = (
        f"from webapp.cli import main\ntry:\n    main(['check', '--contract', {contract!r},"
        f" '--arguments', {call['args']!r}, '--request', {call['bad']!r}])\nexcept SystemExit as "
        "e:\n"
        "    assert e.code == 1, e.code"
    )
    loaded = loaded_modules(run)
    assert "jsonschema" in loaded
    assert not loaded & {
        "flask",
        "sqlite_utils",
        "gunicorn",
        "rfc3987_syntax",
        "lark",
        "isoduration",
        "webcolors",
    }


@pytest.mark.parametrize(
    "n,noun,said",
    [
        (0, "error", "0 errors"),
        (1, "warning", "1 warning"),
        (2, "warning", "2 warnings"),
        (2, "info", "2 info"),
        (2, "warning or error", "2 warnings or errors"),
        (1, "validation error", "1 validation error"),
    ],
)
def test_a_count_says_its_noun_in_the_singular_or_plural(n, noun, said):
    assert counted(n, noun) == said


def test_the_check_summary_says_its_counts_in_the_plural():
    summary = format_check({"summary": {"error": 0, "warning": 2, "info": 1}, "validation": {}})
    assert summary.splitlines()[-1] == "0 errors, 2 warnings, 1 info; 0 validation errors"


def test_a_fixture_with_a_lone_surrogate_is_refused_in_the_words_ingest_uses(tmp_path, client):
    record = '{"trace_id": "s1", "snapshot": "arguments", "payload": {"q": "\\ud800"}}'
    (tmp_path / "args.json").write_text('{"q": "\\ud800"}')
    good = '{"trace_id": "s2", "snapshot": "arguments", "payload": {"q": "a"}}'
    (tmp_path / "events.ndjson").write_text(f"{record}\n{good}\n")
    [refused] = client.post("/api/v1/ingest", data=f"{record}\n{good}").get_json()["rejected"]
    checked = CliRunner().invoke(main, ["check", "--arguments", str(tmp_path / "args.json")])
    assert checked.exit_code == 2 and refused["message"] in checked.output
    db = str(tmp_path / "cli.db")
    ingested = CliRunner().invoke(main, ["ingest", "--db", db, str(tmp_path / "events.ndjson")])
    assert f"{refused['code']}: {refused['message']}" in ingested.output
