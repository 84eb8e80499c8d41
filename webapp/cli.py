"""The `tracediff` command: serve, ingest, tools, check, reanalyze, prune."""
import sqlite3
import sys
from pathlib import Path

import click
import orjson

from . import ROOT, pipeline
from .analysis import analyze_call
from .analysis.kinds import worst
from .analysis.response import error_body, error_schema_for
from .analysis.validation import is_valid
from .config import SettingError, load_settings
from .contracts import (ContractError, contracts_from_document, import_files, load_file, parse_operations,
                        validated_contract)
from .redact import redactor_for
from .report import format_check
from .store import Store, StoreUnavailable
from .worker import cutoff

DB_OPTION = click.option("--db", "database", envvar="TRACEDIFF_DATABASE", default=None,
                         help="SQLite database file [env TRACEDIFF_DATABASE; default tracediff.db].")


def _settings(database=None, **overrides) -> dict:
    extra = {k: v for k, v in overrides.items() if v is not None}
    if database:
        extra["DATABASE"] = database
    try:
        return load_settings(extra)
    except SettingError as error:
        raise click.ClickException(str(error)) from None


def _open_store(settings: dict, create: bool = True) -> Store:
    """Open the database, or fail with one line saying why."""
    try:
        return Store.from_settings(settings, create=create)
    except (sqlite3.Error, OSError, StoreUnavailable) as error:
        raise click.ClickException(f"cannot open the database {settings['DATABASE']}: {error}") from None


def _open_existing_store(database) -> Store:
    """Open a database that must already exist; never create one."""
    settings = _settings(database)
    if not Path(settings["DATABASE"]).is_file():
        raise click.ClickException(f"there is no database at {settings['DATABASE']}")
    return _open_store(settings, create=False)


@click.group()
def main():
    """tracediff: see where an LLM agent's tool call went wrong."""


@main.command()
@click.option("--host", default=None, help="Address to listen on [default 127.0.0.1].")
@click.option("--port", type=click.IntRange(1, 65535), default=None, help="Port to listen on [default 8000].")
@click.option("--workers", type=click.IntRange(1), default=None, help="Worker processes [default 2].")
@DB_OPTION
@click.option("--demo", is_flag=True, help="Load sample_traces/ when the database is empty.")
def serve(host, port, workers, database, demo):
    """Run the dashboard and the ingest API with gunicorn."""
    from .server import ServerError, check_bindable, serve as run_server

    settings = _settings(database, HOST=host, PORT=port, WORKERS=workers)
    store = _open_store(settings)
    if demo and store.count_traces() == 0:
        result = pipeline.load_folder(store, ROOT / "sample_traces", redactor_for(settings))
        click.echo(f"demo: loaded {result.accepted} events from sample_traces/", err=True)
    store.close()
    try:
        check_bindable(settings["HOST"], settings["PORT"])
    except ServerError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"tracediff on http://{settings['HOST']}:{settings['PORT']}/ (database {settings['DATABASE']})", err=True)
    run_server(settings)


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(allow_dash=True))
@DB_OPTION
@click.option("--batch-size", type=click.IntRange(1), default=1000, show_default=True,
              help="Events committed per transaction.")
def ingest(files, database, batch_size):
    """Load NDJSON or JSON files of events (- for stdin) into the database."""
    from .bulk import ingest_files

    settings = _settings(database)
    store = _open_store(settings)
    summary = ingest_files(store, files, redactor_for(settings), batch_size)
    pipeline.catch_up(store)
    click.echo(summary.describe())
    sys.exit(0 if not summary.failed_files else 1)


@main.group()
def tools():
    """Tool contracts: import, list, show."""


def _operations(ctx, param, values):
    try:
        return parse_operations(values)
    except ContractError as error:
        raise click.BadParameter(str(error), ctx, param) from None


@tools.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--operation", "operations", multiple=True, metavar="TOOL=OPERATION_ID", callback=_operations,
              help="Map a tool name to an OpenAPI operationId (repeatable).")
@DB_OPTION
def tools_import(files, operations, database):
    """Import tool definitions, contracts or OpenAPI documents (JSON, or YAML: .yaml/.yml)."""
    store = _open_store(_settings(database))
    try:
        names, skipped = import_files(store, files, operations)
    except ContractError as error:
        raise click.ClickException(str(error)) from None
    pipeline.catch_up(store)
    click.echo(f"imported {len(names)} tool contract(s): {', '.join(names)}")
    for tool in skipped:
        click.echo(f"skipped {tool['name']} ({tool['type']}): {tool['reason']}")


@tools.command("list")
@DB_OPTION
def tools_list(database):
    """List the stored tool contracts."""
    for tool in _open_existing_store(database).list_tools():
        schemas = [k.removesuffix("_schema") for k in tool if k.endswith("_schema")]
        click.echo(f"{tool['name']}\t{','.join(schemas)}\t{len(tool.get('mapping') or [])} mapping(s)")


@tools.command("show")
@click.argument("name")
@DB_OPTION
def tools_show(name, database):
    """Print a stored tool contract as JSON."""
    tool = _open_existing_store(database).get_tool(name)
    if tool is None:
        raise click.ClickException(f"no contract for tool {name!r}; `tracediff tools list` shows the stored ones")
    click.echo(orjson.dumps(tool, option=orjson.OPT_INDENT_2).decode())


@main.command()
@click.option("--budget", type=float, default=None, metavar="SECONDS",
              help="CPU seconds each call's analysis may take, 0 for no limit [default TRACEDIFF_ANALYSIS_BUDGET]; "
                   "more than the default finishes calls marked incomplete.")
@DB_OPTION
def reanalyze(budget, database):
    """Recompute validation and findings of every call (after a contract change)."""
    settings = _settings(database)
    store = _open_store(settings)
    store.project_all()
    store.invalidate_tool(None)
    budget = settings["ANALYSIS_BUDGET"] if budget is None else budget
    click.echo(f"reanalysed {pipeline.catch_up(store, budget)} call(s)")


@main.command()
@click.option("--days", type=int, default=None, help="Delete traces not seen for this many days "
              "[default TRACEDIFF_RETENTION_DAYS].")
@DB_OPTION
def prune(days, database):
    """Delete old traces in small transactions."""
    settings = _settings(database)
    days = settings["RETENTION_DAYS"] if days is None else days
    if days <= 0:
        raise click.ClickException("give --days N (or set TRACEDIFF_RETENTION_DAYS) with N > 0")
    since = cutoff(days)
    deleted = _open_store(settings).prune(since)
    click.echo(f"deleted {deleted} trace(s) not seen since {since}")


class JsonFile(click.ParamType):
    """A file holding one JSON document; read as (path, value)."""

    name = "json_file"

    def convert(self, value, param, ctx):
        if isinstance(value, tuple):
            return value
        path = click.Path(exists=True, dir_okay=False).convert(value, param, ctx)
        try:
            text = Path(path).read_bytes()
        except OSError as error:
            self.fail(f"{path}: cannot read: {error.strerror or error}", param, ctx)
        try:
            return str(path), orjson.loads(text)
        except orjson.JSONDecodeError as error:
            if param is not None and param.name == "arguments":
                self.fail(f"{path} is not JSON: {error}", param, ctx)
            return str(path), text.decode("utf-8", "replace")   # an HTTP body may be text, or broken JSON


@main.command()
@click.option("--tool", default=None, help="Tool name (to pick it from a file of several contracts).")
@click.option("--contract", type=click.Path(exists=True, dir_okay=False),
              help="Contract, tool definition or OpenAPI file (JSON, or YAML: .yaml/.yml).")
@click.option("--arguments", type=JsonFile(), help="The model's arguments (JSON).")
@click.option("--request", "request_file", type=JsonFile(), help="The HTTP request body (JSON).")
@click.option("--response", type=JsonFile(), help="The HTTP response body (JSON).")
@click.option("--status", type=click.IntRange(100, 599), default=None,
              help="HTTP status of the response [default: unknown, so no status-based findings].")
@click.option("--json", "as_json", is_flag=True, help="Print the analysis as JSON.")
def check(tool, contract, arguments, request_file, response, status, as_json):
    """Check fixture files against a contract; exit 1 on any warning or error."""
    if not (arguments or request_file or response):
        raise click.UsageError("give at least one of --arguments, --request, --response")
    snapshots = {"arguments": _snapshot(arguments), "request": _snapshot(request_file),
                 "response": _snapshot(response, status)}
    try:
        tool_contract = _check_contract(contract, tool)
    except ContractError as error:
        raise click.ClickException(str(error)) from None
    result = analyze_call(snapshots, tool_contract)
    if response and status is None:
        _accept_error_body(result, response[1], tool_contract)
    if as_json:
        click.echo(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode())
    else:
        click.echo(format_check(result))
    failing = result["summary"].get("error", 0) + result["summary"].get("warning", 0)
    invalid = any(v.get("valid") is False for v in result["validation"].values())
    sys.exit(1 if failing or invalid else 0)


def _accept_error_body(result: dict, body, contract) -> None:
    """With no status the response may be an error report: accept one that fits the error schema."""
    checked = result["validation"]["response"]
    name, schema = error_schema_for(contract)
    if checked["valid"] is not False or not is_valid(error_body(body, name)[1], schema):
        return
    result["validation"]["response"] = {"schema": name, "valid": True, "errors": []}
    result["summary"]["validation_errors"] -= len(checked["errors"])
    result["worst"] = worst([f["severity"] for f in result["findings"]] +
                            (["error"] if result["summary"]["validation_errors"] else []))


def _snapshot(document, status=None) -> dict | None:
    if document is None:
        return None
    http = {"status_code": status} if status is not None else None
    return {"payload": document[1], "logged_as_string": False, "http": http}


def _check_contract(path, tool) -> dict | None:
    """Return the contract of `tool` (or of the only tool) in a contract file."""
    if path is None:
        return None
    try:
        document = load_file(path)
    except ContractError as error:
        raise click.BadParameter(str(error), param_hint="'--contract'") from None
    contracts = contracts_from_document(document)
    if tool is None and len(contracts) != 1:
        raise click.UsageError(f"{path} holds contracts for {len(contracts)} tools; choose one with --tool "
                               f"({', '.join(sorted(contracts))})")
    tool = tool if tool is not None else next(iter(contracts))
    if tool not in contracts:
        raise ContractError(f"{path} has no contract for tool {tool!r}; it has: {', '.join(sorted(contracts))}")
    return {"name": tool, **validated_contract(tool, contracts[tool])}


from .cli_alerts import alerts  # noqa: E402 - a command group of its own module

main.add_command(alerts)
