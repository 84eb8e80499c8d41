"""`tracediff problems list|show|resolve|archive|reopen|merge|link`.

Problems from a terminal."""

import getpass

import click

from ..common import jsontext
from ..problems.words import counted
from ..reports.text import one_line
from .common import DB_OPTION, _open_existing_store, _settings


@click.group()
def problems():
    """Problems: findings grouped by fingerprint, with their history and state."""


def _end(where) -> str:
    return "-" if not where else f"{where['snapshot']}:{where['path'] or '/'}"


def _problem(store, problem_id: str) -> dict:
    # here: `tracediff check` starts without the store
    from ..pipeline.problems import read_problem

    number = store.resolve_problem_id(problem_id)
    problem = read_problem(store, number) if number is not None else None
    if problem is None:
        raise click.ClickException(
            f"no problem {problem_id!r}; `tracediff problems list` shows them"
        )
    if "merged_into" in problem:
        click.echo(f"{problem['id']} was merged into {problem['merged_into']}", err=True)
        return _problem(store, problem["merged_into"])
    return problem


def _who() -> str:
    """Name the CLI and the OS user who ran it, for the state history."""
    try:
        return f"cli (user {getpass.getuser()})"
    except (KeyError, OSError):
        return "cli"


@problems.command("list")
@click.option("--tool", default="")
@click.option("--kind", default="")
@click.option("--state", default="", help="new, ongoing, resolved, regressed or archived.")
@click.option("--severity", default="")
@click.option("--source", default="")
@click.option("--release", default="")
@click.option("--ticket", default="", help="linked (has ticket links) or unlinked.")
@click.option("--since", default="", help="RFC 3339 time, a day, or a time ago (2h, 7d).")
@click.option("--until", default="")
@click.option("--limit", default="50", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON lines.")
@DB_OPTION
def problems_list(database, as_json, **filters):
    """List problems, most recently seen first."""
    from ..web.problem_filters import ProblemQuery

    message = ProblemQuery.bad_value(filters)
    if message:
        raise click.BadParameter(message)
    from ..pipeline.problems import find_problems

    found, _ = find_problems(
        _open_existing_store(database), ProblemQuery.from_args(filters).filters()
    )
    for p in found:
        if as_json:
            click.echo(jsontext.dumps(p).decode())
            continue
        click.echo(
            "\t".join(
                one_line(field)
                for field in [
                    p["id"],
                    p["state"],
                    p["severity"],
                    p["kind"],
                    p["tool"] or "-",
                    f"{_end(p['left'])} -> {_end(p['right'])}",
                    p["transform"] or "-",
                    counted(p["occurrences"], "occurrence"),
                    counted(p["calls"], "call"),
                    p["last_seen"] or "-",
                ]
            )
        )


@problems.command("show")
@click.argument("problem_id")
@click.option("--json", "as_json", is_flag=True, help="Print the problem as JSON.")
@DB_OPTION
def problems_show(problem_id, as_json, database):
    """Show one problem: reach, releases, values, state history."""
    from ..problems.fingerprint import grouped_by
    from ..problems.states import pending_text, verified_text

    p = _problem(_open_existing_store(database), problem_id)
    if as_json:
        click.echo(jsontext.dumps(p, option=jsontext.OPT_INDENT_2).decode())
        return
    lines = [
        f"{p['id']} {p['state']} {p['severity']} {p['kind']} in {p['tool'] or '(no tool)'}",
        f"  {_end(p['left'])} -> {_end(p['right'])}"
        + (f"  transform {p['transform']}" if p["transform"] else ""),
        f"  first seen {p['first_seen']}, last seen {p['last_seen']}",
        f"  {counted(p['occurrences'], 'occurrence')}, {counted(p['calls'], 'call')}, "
        f"{counted(p['traces'], 'trace')}; "
        f"{p['exposure']['calls']} in {counted(p['exposure']['calls_with_path'], 'call')} that had "
        "the path broke",
        f"  releases: {', '.join(p['releases']) or '-'}; sources: {', '.join(p['sources']) or '-'}",
        f"  {grouped_by(p)}",
    ]
    if pending_text(p["resolution"], p["state"]):
        lines.append("  " + pending_text(p["resolution"], p["state"]))
    if p.get("verification"):
        lines.append("  " + verified_text(p["verification"]["calls"], p["verification"]["broke"]))
    lines += [
        f"  {_value(pair, 'left')} -> {_value(pair, 'right')} x {pair['count']}"
        for pair in p["value_pairs"]
    ]
    lines += [f"  {h['at']} {h['state']} by {h['by']}: {h['detail']}" for h in p["state_history"]]
    click.echo("\n".join(map(one_line, lines)))


def _value(pair: dict, side: str) -> str:
    """Write one side of a value pair.

    Its JSON, or "(missing)" when the field was not there."""
    return "(missing)" if side in pair.get("missing", ()) else jsontext.dumps(pair[side]).decode()


def _change(database, problem_id: str, body: dict) -> None:
    from ..pipeline.changes import change_problem
    from ..pipeline.problems import read_problem
    from ..problems.states import BadChange, parse_change
    from ..store.errors import ChangeRefused

    store = _open_existing_store(database)
    problem = _problem(store, problem_id)
    try:
        change_problem(store, int(problem["id"][3:]), parse_change(body), _who())
    except (BadChange, ChangeRefused) as error:
        raise click.ClickException(str(error)) from None
    changed = read_problem(store, int(problem["id"][3:]))
    merged = changed.get("merged_into")
    click.echo(f"{changed['id']} {'merged into ' + merged if merged else changed['state']}")


@problems.command("resolve")
@click.argument("problem_id")
@click.option("--next-release", is_flag=True, help="Resolved in the next release.")
@click.option("--contract-change", is_flag=True, help="Resolved when the contract changes.")
@click.option(
    "--after-clean-calls",
    type=click.IntRange(1),
    default=None,
    help="Resolved after N clean calls that exercised the path.",
)
@DB_OPTION
def problems_resolve(problem_id, next_release, contract_change, after_clean_calls, database):
    """Resolve a problem, now or when a condition is met.

    Now, in the next release, on a contract change or after N clean calls."""
    chosen = [
        name
        for name, given in (
            ("--next-release", next_release),
            ("--contract-change", contract_change),
            ("--after-clean-calls", after_clean_calls),
        )
        if given
    ]
    # a usage error (exit 2), not a guess at which one was meant
    if len(chosen) > 1:
        raise click.UsageError(
            f"{', '.join(chosen[:-1])} and {chosen[-1]} are alternatives: give at most one"
        )
    resolve = (
        {"after_clean_calls": after_clean_calls}
        if after_clean_calls
        else "next_release"
        if next_release
        else "contract_change"
        if contract_change
        else "now"
    )
    _change(database, problem_id, {"state": "resolved", "resolve": resolve})


@problems.command("archive")
@click.argument("problem_id")
@click.option("--for-good", is_flag=True, help="Stay archived even if it escalates.")
@DB_OPTION
def problems_archive(problem_id, for_good, database):
    """Archive a problem until it escalates (or for good)."""
    _change(
        database, problem_id, {"state": "archived", "until": None if for_good else "escalating"}
    )


@problems.command("reopen")
@click.argument("problem_id")
@DB_OPTION
def problems_reopen(problem_id, database):
    """Reopen a resolved or archived problem."""
    _change(database, problem_id, {"state": "open"})


@problems.command("merge")
@click.argument("problem_id")
@click.option("--into", required=True, help="The problem that takes over its calls (TD-7).")
@DB_OPTION
def problems_merge(problem_id, into, database):
    """Merge a problem into another; its id then redirects there."""
    _change(database, problem_id, {"merged_into": into})


@problems.command("link")
@click.argument("problem_id")
@click.argument("urls", nargs=-1, required=True)
@click.option("--remove", is_flag=True, help="Remove these links instead of adding them.")
@DB_OPTION
def problems_link(problem_id, urls, remove, database):
    """Attach ticket links to a problem (or remove them).

    A secret in a link is redacted when stored."""
    from ..pipeline.changes import change_problem
    from ..problems.states import BadChange, links_change
    from ..redaction.redactor import redactor_for
    from ..store.errors import ChangeRefused

    store = _open_existing_store(database)
    problem = _problem(store, problem_id)
    redactor = redactor_for(_settings(database))
    try:
        change = links_change(
            problem["links"],
            () if remove else urls,
            urls if remove else (),
            redactor.url if redactor else None,
        )
        change_problem(store, int(problem["id"][3:]), change, _who())
    except (BadChange, ChangeRefused) as error:
        raise click.ClickException(str(error)) from None
    links = store.get_problem(int(problem["id"][3:]))["links"]
    click.echo(f"{problem['id']}: {len(links)} link{'s' if len(links) != 1 else ''}")
    for link in links:
        click.echo(f"  {link}")
