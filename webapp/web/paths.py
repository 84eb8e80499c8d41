"""The paths the access rules name, and the methods that change nothing."""

INGEST_PATHS = ("/api/v1/ingest", "/v1/traces", "/v1/logs")
OPEN_PATHS = ("/static/", "/api/v1/health", "/api/v1/ready")
METRICS_PATH = "/metrics"
# the MCP server over Streamable HTTP (webapp/mcp/http.py): the read scope, as the API
MCP_PATH = "/mcp"
API_PREFIXES = ("/api/", "/v1/", MCP_PATH)
TOOLS_PATH = "/api/v1/tools/"
# the tool pages' confirm, reject and "pair these" forms change contracts
TOOL_PAGES_PATH = "/tools/"
PROBLEMS_API_PATH = "/api/v1/problems/"
# resolving, archiving or merging a problem changes state, as contracts do
PROBLEM_PAGES_PATH = "/problems/"
# rules hold secrets and make the server call out
ALERT_PATHS = ("/api/v1/alerts",)
# its forms, as the tool and problem pages' ones, open with Basic auth too
ALERT_PAGES_PATH = "/settings/alerts"
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
