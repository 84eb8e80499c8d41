"""`tracediff alerts`.

Add, list, remove and test alert rules on the database, as the API does."""

import click

from .common import DB_OPTION, _open_existing_store, _open_store, _settings


def _store(database, create: bool = False):
    """Return the settings and the store.

    Only `add` may create the database (a first rule before the server first starts)."""
    settings = _settings(database)
    return settings, _open_store(settings) if create else _open_existing_store(database)


@click.group()
def alerts():
    """Alert rules: add, list, remove, test."""


@alerts.command("add")
@click.argument("url")
@click.option(
    "--on",
    "on",
    default="new,regressed",
    show_default=True,
    help="Comma-separated: new, regressed, escalating, rejected_events.",
)
@click.option(
    "--format", "fmt", type=click.Choice(["webhook", "slack"]), default="webhook", show_default=True
)
@click.option("--tool")
@click.option("--kind", help="A finding kind, or schema_violation.")
@click.option("--min-severity", type=click.Choice(["warning", "error"]))
@click.option("--source")
@click.option(
    "--min-interval",
    "min_interval_s",
    type=int,
    default=600,
    show_default=True,
    help="Seconds between two messages about the same problem.",
)
@click.option(
    "--secret-part",
    "secret_parts",
    multiple=True,
    help="A query parameter name, or a path segment number (1 is the first), that holds a secret"
    " besides the usual ones: shown as [REDACTED] once saved. Repeat for more.",
)
@DB_OPTION
def add(url, on, fmt, tool, kind, min_severity, source, min_interval_s, secret_parts, database):
    """Add a rule; prints its id, its URL masked and its signing secret.

    The secret is shown this once only."""
    from ..alerts import RuleError, new_secret, parse_rule
    from ..alerts.rules import filters_text
    from ..alerts.secrets import masked_url
    from ..alerts.urls import UrlRefused, allow_list, check_url

    settings, store = _store(database, create=True)
    body = {
        "url": url,
        "format": fmt,
        "on": [e.strip() for e in on.split(",") if e.strip()],
        "tool": tool,
        "kind": kind,
        "min_severity": min_severity,
        "source": source,
        "min_interval_s": min_interval_s,
        "secret_parts": [int(part) if part.isdigit() else part for part in secret_parts],
    }
    try:
        rule = parse_rule(body)
        check_url(rule["url"], allow_list(settings["WEBHOOK_ALLOW_HOSTS"]))
    except (RuleError, UrlRefused) as error:
        raise click.UsageError(str(error)) from None
    secret = new_secret()
    rule_id = store.add_rule(rule, secret)
    shown = masked_url(rule)
    click.echo(f"rule {rule_id}: {fmt} to {shown} on {', '.join(rule['on'])}; {filters_text(rule)}")
    click.echo(f"secret (shown once): {secret}")


@alerts.command("list")
@DB_OPTION
def list_rules(database):
    """List the rules, one a line, tab-separated.

    Id, format, URL (secrets masked), events, every filter, state."""
    from ..alerts.rules import filters_text
    from ..alerts.secrets import public
    from ..reports.text import one_line

    rules = _store(database)[1].list_rules()
    if not rules:
        # on stderr: stdout stays one rule a line for a script reading it
        click.echo("no alert rules; add one with tracediff alerts add URL (see --help)", err=True)
    for rule in map(public, rules):
        state = (
            f"paused ({rule['held']} held): {rule['pause_reason']}" if rule["paused"] else "active"
        )
        shown = (rule["id"], rule["format"], rule["url"], ",".join(rule["on"]), filters_text(rule))
        click.echo("\t".join(one_line(str(field)) for field in (*shown, state)))


@alerts.command("remove")
@click.argument("rule_id", type=int)
@DB_OPTION
def remove(rule_id, database):
    """Remove a rule with its messages and delivery log (its id is never reused)."""
    if not _store(database)[1].delete_rule(rule_id):
        raise click.ClickException(f"no alert rule {rule_id}")
    click.echo(f"removed rule {rule_id}")


@alerts.command("test")
@click.argument("rule_id", type=int)
@DB_OPTION
def test(rule_id, database):
    """Send one signed test message to a rule's URL now.

    Print in one line what came back; exit 1 when it failed."""
    from ..ops.alert_links import permalink_base
    from ..ops.sender import describe, test_delivery

    settings, store = _store(database)
    if store.get_rule(rule_id) is None:
        raise click.ClickException(f"no alert rule {rule_id}")
    base, where = permalink_base(settings, store.server_url())
    outcome = test_delivery(store, rule_id, {**settings, "PUBLIC_URL": base})
    click.echo(f"rule {rule_id}: {describe(outcome)}; its link: {base}/ ({where})")
    if not outcome["ok"]:
        raise SystemExit(1)
