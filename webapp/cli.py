"""The `tracediff` command: serve, ingest, tools, check, reanalyze, prune."""
import sys

import click
import orjson

from . import ROOT, pipeline
from .analysis import analyze_call
from .config import load_settings
from .contracts import ContractError, import_contract_files
from .redact import redactor_for
from .report import format_check
from .store import Store
from .worker import cutoff

DB_OPTION = click.option("--db", "database", envvar="TRACEDIFF_DATABASE", default=None,
                         help="SQLite database file [env TRACEDIFF_DATABASE; default tracediff.db].")


def _settings(database=None, **overrides) -> dict:
    extra = {k: v for k, v in overrides.items() if v is not None}
    if database:
        extra["DATABASE"] = database
    return load_settings(extra)


@click.group()
def main():
    """tracediff: see where an LLM agent's tool call went wrong."""


@main.command()
@click.option("--host", default=None, help="Address to listen on [default 127.0.0.1].")
@click.option("--port", type=int, default=None, help="Port to listen on [default 8000].")
@click.option("--workers", type=int, default=None, help="Worker processes [default 2].")
@DB_OPTION
@click.option("--demo", is_flag=True, help="Load sample_traces/ when the database is empty.")
def serve(host, port, workers, database, demo):
    """Run the dashboard and the ingest API with gunicorn."""
    from .server import serve as run_server

    settings = _settings(database, HOST=host, PORT=port, WORKERS=workers)
    store = Store.from_settings(settings, create=True)
    if demo and store.count_traces() == 0:
        result = pipeline.load_folder(store, ROOT / "sample_traces", redactor_for(settings))
        click.echo(f"demo: loaded {result.accepted} events from sample_traces/", err=True)
    store.close()
    click.echo(f"tracediff on http://{settings['HOST']}:{settings['PORT']}/ (database {settings['DATABASE']})", err=True)
    run_server(settings)


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(allow_dash=True))
@DB_OPTION
@click.option("--batch-size", default=1000, show_default=True, help="Events committed per transaction.")
def ingest(files, database, batch_size):
    """Load NDJSON or JSON files of events (- for stdin) into the database."""
    from .bulk import ingest_files

    settings = _settings(database)
    store = Store.from_settings(settings, create=True)
    summary = ingest_files(store, files, redactor_for(settings), batch_size)
    pipeline.catch_up(store)
    click.echo(summary.describe())
    sys.exit(0 if not summary.failed_files else 1)


@main.group()
def tools():
    """Tool contracts: import, list, show."""


@tools.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--operation", "operations", multiple=True, metavar="TOOL=OPERATION_ID",
              help="Map a tool name to an OpenAPI operationId (repeatable).")
@DB_OPTION
def tools_import(files, operations, database):
    """Import tool definitions, contracts or OpenAPI documents."""
    mapping = dict(item.split("=", 1) for item in operations) or None
    store = Store.from_settings(_settings(database), create=True)
    try:
        names = import_contract_files(store, files, mapping)
    except (ContractError, ValueError) as error:
        raise click.ClickException(str(error)) from error
    pipeline.catch_up(store)
    click.echo(f"imported {len(names)} tool contract(s): {', '.join(names)}")


@tools.command("list")
@DB_OPTION
def tools_list(database):
    """List the stored tool contracts."""
    for tool in Store.from_settings(_settings(database), create=True).list_tools():
        schemas = [k.removesuffix("_schema") for k in tool if k.endswith("_schema")]
        click.echo(f"{tool['name']}\t{','.join(schemas)}\t{len(tool.get('mapping') or [])} mapping(s)")


@main.command()
@DB_OPTION
def reanalyze(database):
    """Recompute validation and findings of every call (after a contract change)."""
    store = Store.from_settings(_settings(database), create=True)
    store.project_all()
    store.invalidate_tool(None)
    click.echo(f"reanalysed {pipeline.catch_up(store)} call(s)")


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
    deleted = Store.from_settings(settings).prune(since)
    click.echo(f"deleted {deleted} trace(s) not seen since {since}")


@main.command()
@click.option("--tool", default=None, help="Tool name (to pick it from a file of several contracts).")
@click.option("--contract", type=click.Path(exists=True), help="Contract or tool definition file.")
@click.option("--arguments", type=click.Path(exists=True), help="The model's arguments (JSON).")
@click.option("--request", "request_file", type=click.Path(exists=True), help="The HTTP request body (JSON).")
@click.option("--response", type=click.Path(exists=True), help="The HTTP response body (JSON).")
@click.option("--status", type=int, default=None, help="HTTP status of the response [default 200].")
@click.option("--json", "as_json", is_flag=True, help="Print the analysis as JSON.")
def check(tool, contract, arguments, request_file, response, status, as_json):
    """Check fixture files against a contract; exit 1 on any warning or error."""
    from .fixtures import load_check_inputs

    try:
        snapshots, tool_contract = load_check_inputs(tool, contract, arguments, request_file, response, status)
    except (ContractError, ValueError) as error:
        raise click.ClickException(str(error)) from error
    result = analyze_call(snapshots, tool_contract)
    if as_json:
        click.echo(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode())
    else:
        click.echo(format_check(result))
    failing = result["summary"].get("error", 0) + result["summary"].get("warning", 0)
    invalid = any(v.get("valid") is False for v in result["validation"].values())
    sys.exit(1 if failing or invalid else 0)
