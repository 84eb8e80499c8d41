"""URL converters every blueprint relies on, registered before any rule is added."""

from werkzeug.routing import IntegerConverter, PathConverter


class AsciiInteger(IntegerConverter):
    """`<int:...>` of ASCII digits only.

    Werkzeug's matches any Unicode digit and int() reads `١` as 1, so DELETE /api/v1/alerts/١
    deleted rule 1."""

    regex = r"[0-9]+"


class ToolName(PathConverter):
    """A tool name in a URL.

    Any text, `/` (MCP tools) and line breaks included, as the string converter took."""

    regex = r"[^/][\s\S]*?"

    def to_url(self, value: str) -> str:
        """Quote the name; keep it one segment when a part of it is `.` or `..`.

        A browser resolves `/tools/x/../findOrders` to another tool's page."""
        url = super().to_url(value)
        if any(part in (".", "..") for part in value.split("/")):
            return url.replace("/", "%2F")
        return url


def init_app(app) -> None:
    app.url_map.converters["int"] = AsciiInteger
    app.url_map.converters["tool"] = ToolName
