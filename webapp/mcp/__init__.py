"""tracediff for coding agents.

An MCP server, on stdio (`tracediff mcp`) and over Streamable HTTP (`/mcp`).

An adapter beside web/ and cli/: tools.py declares the eight tools once; each reads tracediff's JSON
API through a `Source` (source.py: over HTTP with a read token; inprocess.py: the app of this very
process), so both transports answer alike. Answers are bounded (bounds.py), payloads cut to a budget
with the JSON Pointers of what was cut (cutting.py). The MCP SDK is imported by server.py alone,
when a server runs.
"""
