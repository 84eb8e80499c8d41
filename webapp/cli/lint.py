"""`tracediff lint TOOLS_FILE [OPENAPI_FILE]`.

Each tool's arguments schema against the request of the API operation it maps to, before any
traffic; the reports and exit codes of `tracediff check` (0 nothing past info, 1 a warning or an
error, 2 a file that cannot be used, a tool that cannot be linted, or nothing linted at all). A tool
that maps to no operation (a local one) is listed as not linted, and fails the run only when --tool
names it."""

import sys
import time
from pathlib import Path

import click

from ..common.words import counted
from .common import OPERATION_OPTION, InputError, report_options


@click.command()
@click.argument("tools_file", type=click.Path(exists=True, dir_okay=False))
@click.argument("openapi_file", required=False, type=click.Path(exists=True, dir_okay=False))
@OPERATION_OPTION
@click.option(
    "--mapping",
    "mapping_file",
    type=click.Path(exists=True, dir_okay=False),
    help="Contracts whose `mapping` declares argument -> request pairs and transforms, as "
    "`tracediff tools show` "
    'prints them ([{"name": TOOL, "mapping": [{"arguments": "/total", "request": "/total_cents", '
    '"transform": "x100"}]}]).',
)
@click.option(
    "--tool",
    "tools",
    multiple=True,
    metavar="NAME",
    help="Lint this tool only (repeatable: these tools); a named tool that maps to no operation "
    "exits 2.",
)
@report_options
def lint(tools_file, openapi_file, operations, mapping_file, tools, output, junit):
    """Compare each tool's arguments with the API operation it maps to.

    The operations come from an OpenAPI document, JSON or YAML. Exit 1 on a mismatch, 2 on bad input
    or when no tool could be linted (one that maps to no operation is listed as not linted)."""
    from ..contracts import ContractError, load_file
    from ..contracts.lint import lint_targets

    try:
        targets = lint_targets(
            load_file(tools_file),
            load_file(openapi_file) if openapi_file else None,
            operations,
            load_file(mapping_file) if mapping_file else None,
            tools,
        )
    except ContractError as error:
        # an OpenAPI document that is none names its file: the two may have been swapped
        about = f"{openapi_file}: " if error.code == "bad_openapi" and openapi_file else ""
        raise InputError(f"{about}{error}") from None
    files = {"arguments": tools_file, "request": openapi_file or tools_file}
    outcomes = [_outcome(target, files) for target in targets]
    sys.exit(_report(outcomes, output, junit))


def _outcome(target, files: dict) -> dict:
    """Lint one target into the outcome `tracediff check`'s reports read.

    Its case, outcome, result and time."""
    from ..analysis import worst
    from ..contracts.lint import lint_contract
    from .check.inputs import Case
    from .check.run import BROKEN, FAILED, PASSED, SKIPPED, fails

    case = Case(target.tool, files, contract={"name": target.tool})
    if target.unlinted is not None:
        case.error, case.error_file = f"not linted: {target.unlinted}", files["arguments"]
        return {"case": case, "outcome": SKIPPED, "result": None, "seconds": 0.0}
    if target.error is not None:
        case.error, case.error_file = target.error, files["request"]
        return {"case": case, "outcome": BROKEN, "result": None, "seconds": 0.0}
    start = time.perf_counter()
    found = lint_contract(target.contract)
    summary = {
        severity: sum(f["severity"] == severity for f in found)
        for severity in ("error", "warning", "info")
    }
    result = {
        "findings": found,
        "validation": {},
        "summary": summary,
        "worst": worst(f["severity"] for f in found),
    }
    result["operation"] = target.operation
    seconds = time.perf_counter() - start
    outcome = FAILED if fails(result) else PASSED
    return {
        "case": case,
        "outcome": outcome,
        "result": result,
        "seconds": seconds,
        "target": target,
    }


def _declared(outcome: dict, finding: dict) -> tuple[str, int | None]:
    """Land a mismatch's annotation in the tools file.

    On the line declaring its argument (or the tool's arguments schema, for a field no argument
    fills) when the file's layout tells it."""
    from .check.locate import line_of

    tools_file = outcome["case"].files["arguments"]
    pointer = outcome["target"].declared_at((finding.get("left") or {}).get("path"))
    return tools_file, line_of(tools_file, pointer)


def _envelope_advice(outcomes: list[dict]) -> str:
    """Advise the error envelope where the linted operations declare none.

    contracts/lint/envelope.py."""
    from ..contracts.lint.envelope import lacks_the_envelope

    lacking = [
        o["case"].name
        for o in outcomes
        if o.get("target") and lacks_the_envelope(o["target"].contract)
    ]
    if not lacking:
        return ""
    named = ", ".join(lacking[:5]) + (f" and {len(lacking) - 5} more" if len(lacking) > 5 else "")
    return (
        f"advice: the error answers of {counted(len(lacking), 'tool')} declare no envelope of "
        "code, message and retryable "
        f"({named}); they are read as services send errors. Declaring it (error_schema) checks "
        "every error an agent "
        "gets and tells it whether to retry (for an API you design)."
    )


def _report(outcomes: list[dict], output: str, junit: str | None) -> int:
    """Print the report, write the JUnit file; return the exit code."""
    from ..common import jsontext
    from .check import output as reports
    from .check.run import exit_code

    if output == "json":
        document = {
            "tools": [
                {
                    "tool": o["case"].name,
                    "operation": (o["result"] or {}).get("operation"),
                    "outcome": o["outcome"],
                    "error": o["case"].error,
                    "mismatches": (o["result"] or {}).get("findings", []),
                }
                for o in outcomes
            ],
            "summary": reports.counts_line(outcomes, "tool"),
        }
        click.echo(jsontext.dumps(document, option=jsontext.OPT_INDENT_2).decode())
    elif output == "github":
        click.echo(reports.github(outcomes, "tracediff lint", "tool", _declared))
    else:
        # a pattern tracediff skips fails nothing, but a passing tool still says it
        click.echo(reports.text(outcomes, True, "tool", told=("pattern_skipped",)))
        advice = _envelope_advice(outcomes)
        if advice:
            click.echo(advice)
    if junit:
        try:
            Path(junit).write_bytes(reports.junit(outcomes, "tracediff lint"))
        except OSError as error:
            raise InputError(
                f"{junit}: cannot write the JUnit report: {error.strerror or error}"
            ) from None
    return exit_code(outcomes)
