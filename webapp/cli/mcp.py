"""`tracediff mcp`.

The MCP server on stdio, its tools reading a running tracediff's JSON API with a read token.

The MCP SDK and httpx are imported when it runs, so `tracediff mcp --help` starts at once.
"""

from urllib.parse import urlsplit

import click


@click.command("mcp")
@click.option(
    "--url",
    envvar="TRACEDIFF_URL",
    required=True,
    metavar="URL",
    help="Address of the running tracediff (http://127.0.0.1:8000) [env TRACEDIFF_URL].",
)
@click.option(
    "--token",
    envvar="TRACEDIFF_TOKEN",
    default=None,
    metavar="TOKEN",
    help="A read token (TRACEDIFF_READ_TOKENS, or an admin one) when reading needs one [env "
    "TRACEDIFF_TOKEN].",
)
def mcp_command(url, token):
    """Serve tracediff's tools to a coding agent over MCP on stdio.

    For Claude Code, Cursor, VS Code...: search traces, read problems, releases, tools and traces,
    check a call, lint tool definitions."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise click.BadParameter(
            f"{url!r} is no http(s) address such as http://127.0.0.1:8000", param_hint="--url"
        )
    from ..mcp.server import run_stdio
    from ..mcp.source import HttpSource

    source = HttpSource(url, token)
    try:
        run_stdio(source)
    finally:
        source.close()
