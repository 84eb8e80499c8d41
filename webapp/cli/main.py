"""The `tracediff` command.

Serve, ingest, tools, check, lint, mcp, reanalyze, prune, backup, problems, alerts.

Each command imports what it needs when it runs, so that `--help` and `check` start at once.
"""

import sys

import click

from ..common.stages import NAMES
from ..common.words import counted
from ..version import __version__
from .alerts import alerts
from .common import (
    DB_OPTION,
    OPERATION_OPTION,
    InputError,
    _open_existing_store,
    _open_store,
    _settings,
    report_options,
)
from .data import backup, ingest, migrate, prune
from .lint import lint
from .mappings import tools_map
from .mcp import mcp_command
from .problems import problems
from .serve import serve


class Commands(click.Group):
    """The commands, with errors told in one line.

    A usage error (a missing file, a bad option) in one line with exit code 2, as for input; a
    database that stops a command (full, read-only, locked, made by a newer tracediff) in one line,
    exit 1."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except click.UsageError as error:
            where = f" (see '{error.ctx.command_path} --help')" if error.ctx else ""
            raise InputError(error.format_message() + where) from None
        except Exception as error:
            stopped = _stopped_by_store(error)
            if stopped is None:
                raise
            raise click.ClickException(stopped) from None


def _stopped_by_store(error: Exception) -> str | None:
    """One line for an error the database raised mid-command.

    None for any other error."""
    # not imported: the error cannot be the store's
    store = sys.modules.get(f"{__package__.rpartition('.')[0]}.store")
    if store is None or not isinstance(error, store.StoreUnavailable):
        return None
    if isinstance(error, store.SchemaTooNew):
        return f"cannot use this database: {error}"
    hint = (
        " Free some space on its disk (`tracediff prune` deletes old traces) and run the command "
        "again."
        if "full" in str(error).lower()
        else " Run the command again when it can be written."
    )
    return f"the database stopped this command: {error}.{hint}"


@click.group(cls=Commands)
@click.version_option(__version__, prog_name="tracediff")
def main():
    """tracediff: see where an LLM agent's tool call went wrong."""


@main.group()
def tools():
    """Tool contracts: import, list, show, map."""


@tools.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@OPERATION_OPTION
@DB_OPTION
def tools_import(files, operations, database):
    """Import tool definitions, contracts or OpenAPI documents.

    JSON, or YAML: .yaml/.yml."""
    from .. import pipeline
    from ..contracts import ContractError, skipped_patterns
    from ..pipeline.contracts import import_files

    store = _open_store(_settings(database))
    try:
        names, skipped = import_files(store, files, operations)
    except ContractError as error:
        raise click.ClickException(str(error)) from None
    pipeline.catch_up(store)
    click.echo(f"imported {counted(len(names), 'tool contract')}: {', '.join(names)}")
    for tool in skipped:
        click.echo(f"skipped {tool['name']} ({tool['type']}): {tool['reason']}")
    for name in names:
        for warning in skipped_patterns(store.get_tool(name)):
            click.echo(f"warning: {name}: {warning['message']}", err=True)


tools.add_command(tools_map)


@tools.command("list")
@DB_OPTION
def tools_list(database):
    """List the stored tool contracts."""
    for tool in _open_existing_store(database).list_tools():
        schemas = [k.removesuffix("_schema") for k in tool if k.endswith("_schema")]
        click.echo(
            f"{tool['name']}\t{','.join(schemas)}\t{len(tool.get('mapping') or [])} mapping(s)"
        )


@tools.command("show")
@click.argument("name")
@DB_OPTION
def tools_show(name, database):
    """Print a stored tool contract as JSON."""
    from ..common import jsontext

    tool = _open_existing_store(database).get_tool(name)
    if tool is None:
        raise click.ClickException(
            f"no contract for tool {name!r}; `tracediff tools list` shows the stored ones"
        )
    click.echo(jsontext.dumps(tool, option=jsontext.OPT_INDENT_2).decode())


@tools.command("observed")
@click.argument("name")
@click.option(
    "--stage",
    type=click.Choice(NAMES),
    default=None,
    help="Print only this stage's schema [default: every stage, with its calls].",
)
@DB_OPTION
def tools_observed(name, stage, database):
    """Print the schemas learnt from a tool's traffic.

    JSON Schema 2020-12, a contract draft."""
    from ..common import jsontext
    from ..pipeline.observed import observed_schemas
    from ..store.toolcalls import known_tool

    store = _open_existing_store(database)
    if not known_tool(store, name):
        raise click.ClickException(f"no tool {name!r}: no contract and no calls")
    drafts = observed_schemas(store, name)
    shown = drafts[stage]["schema"] if stage else drafts
    if stage and shown is None:
        raise click.ClickException(f"no {stage} of {name!r} was learnt yet")
    click.echo(jsontext.dumps(shown, option=jsontext.OPT_INDENT_2).decode())


@main.command()
@click.option(
    "--budget",
    type=click.FloatRange(min=0),
    default=None,
    metavar="SECONDS",
    help="CPU seconds each call's analysis may take, 0 for no limit [default "
    "TRACEDIFF_ANALYSIS_BUDGET]; "
    "more than the default finishes calls marked incomplete.",
)
@DB_OPTION
def reanalyze(budget, database):
    """Recompute validation and findings of every call.

    After a contract change; and learn the observed shapes again from the stored calls."""
    from .. import pipeline

    settings = _settings(database)
    store = _open_existing_store(database)
    store.project_all()
    pipeline.patiently(store.forget_observed)
    marked = pipeline.patiently(lambda: store.invalidate_tool(None))
    budget = settings["ANALYSIS_BUDGET"] if budget is None else budget
    here = pipeline.patiently(lambda: pipeline.catch_up(store, budget))
    helped = f" ({here} here, the rest by a running server's analyser)" if here < marked else ""
    click.echo(f"reanalysed {counted(marked, 'call')}{helped}")


@main.command()
@click.argument("folders", nargs=-1, type=click.Path(exists=True, file_okay=False))
@click.option(
    "--tool", default=None, help="Tool name (to pick it from a file of several contracts)."
)
@click.option(
    "--contract",
    type=click.Path(exists=True, dir_okay=False),
    help="Contract (named, or a bare PUT body), tool definitions or OpenAPI file (JSON, or YAML).",
)
@click.option(
    "--arguments",
    type=click.Path(exists=True, dir_okay=False),
    help="The model's arguments (JSON).",
)
@click.option(
    "--request",
    "request_file",
    type=click.Path(exists=True, dir_okay=False),
    help="The HTTP request body (JSON).",
)
@click.option(
    "--response",
    type=click.Path(exists=True, dir_okay=False),
    help="The HTTP response body (JSON).",
)
@click.option(
    "--result",
    type=click.Path(exists=True, dir_okay=False),
    help="What the tool handed back to the model (JSON or text: an MCP CallToolResult, a "
    "tool_result block...).",
)
@click.option(
    "--result-is-error",
    type=click.BOOL,
    default=None,
    metavar="true|false",
    help="Whether the model was told the call failed, for a --result with no flag of its own "
    "(plain text or JSON).",
)
@click.option(
    "--url",
    "--request-url",
    "url",
    default=None,
    help="The request's URL: its path segments and query string are checked like its body.",
)
@click.option("--method", default=None, help="The request's HTTP method (GET, POST...).")
@click.option(
    "--header",
    "headers",
    multiple=True,
    metavar="'NAME: VALUE'",
    help="A request header (repeatable); id headers such as Idempotency-Key are checked.",
)
@click.option(
    "--status",
    type=click.IntRange(100, 599),
    default=None,
    help="HTTP status of the response [default: unknown, so no status-based findings].",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the analysis as JSON (the same as --format json).",
)
@report_options
def check(
    folders,
    tool,
    contract,
    arguments,
    request_file,
    response,
    result,
    result_is_error,
    url,
    method,
    headers,
    status,
    as_json,
    output,
    junit,
):
    """Check fixture files, or fixture FOLDERS, against a contract.

    Exit 1 on a finding, 2 on bad input."""
    from .check import CheckOptions, request_http
    from .check import InputError as CheckInputError
    from .check import check as run_check

    files = {"arguments": arguments, "request": request_file, "response": response}
    # without --result, the files and the report are the three snapshots' as before
    if result is not None:
        files["result"] = result
    try:
        http = request_http(url, method, headers)
    except CheckInputError as error:
        raise click.UsageError(str(error)) from None
    if folders and (any(files.values()) or http):
        raise click.UsageError(
            "give fixture FOLDERS or --arguments/--request/--response/--result files, not both"
        )
    if not folders and not (any(files.values()) or http):
        raise click.UsageError(
            "give fixture FOLDERS, or at least one of --arguments, --request, --url, --response, "
            "--result"
        )
    if result_is_error is not None and result is None:
        raise click.UsageError(
            "--result-is-error says what the --result file told the model: give --result too"
        )
    output = "json" if as_json else output
    options = CheckOptions(
        folders, files, contract, tool, status, output, junit, http, result_is_error
    )
    try:
        code = run_check(options, click.echo)
    except CheckInputError as error:
        raise InputError(str(error)) from None
    sys.exit(code)


main.add_command(lint)
main.add_command(mcp_command)
main.add_command(serve)
main.add_command(alerts)
main.add_command(problems)
main.add_command(ingest)
main.add_command(migrate)
main.add_command(prune)
main.add_command(backup)
