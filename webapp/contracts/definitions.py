"""Tool definitions in the formats LLM providers and MCP use.

Schemas, descriptions, server tools."""

from ..common.pointers import child
from .inline import from_30

SCHEMA_INPUT_KEYS = ("input_schema", "inputSchema", "parameters", "parametersJsonSchema")
GEMINI_BUILT_INS = {
    "googleSearch",
    "google_search",
    "googleSearchRetrieval",
    "google_search_retrieval",
    "codeExecution",
    "code_execution",
    "urlContext",
    "url_context",
}
JSON_TYPES = ("object", "array", "string", "number", "integer", "boolean", "null")


def tools_from_definitions(obj) -> dict[str, dict]:
    """Return {tool name: {"arguments_schema": schema}} from tool definitions.

    Anthropic, OpenAI, MCP or Gemini definitions (and an MCP tool's outputSchema as its
    result_schema)."""
    tools: dict[str, dict] = {}
    for name, schema, _ in _walk(obj):
        if name in tools:
            raise ValueError(f"tool {name!r} is defined twice")
        tools[name] = {"arguments_schema": schema}
    for name, output in _output_schemas(obj):
        if name in tools:
            # MCP outputSchema: what structuredContent must match
            tools[name]["result_schema"] = output
    if not tools:
        raise ValueError("no tool definitions found")
    return tools


def _output_schemas(obj):
    """Yield (name, outputSchema) of the MCP tool definitions that declare one."""
    if isinstance(obj, list):
        for item in obj:
            yield from _output_schemas(item)
    elif isinstance(obj, dict):
        if isinstance(obj.get("result"), dict) and "tools" in obj["result"]:
            yield from _output_schemas(obj["result"]["tools"])
        elif isinstance(obj.get("tools"), list):
            yield from _output_schemas(obj["tools"])
        elif isinstance(obj.get("name"), str) and isinstance(obj.get("outputSchema"), dict):
            yield obj["name"], obj["outputSchema"]


def schema_pointers(document) -> dict[str, str]:
    """Return {tool name: JSON Pointer of its arguments schema in the document}.

    `/0/function/parameters`, `/tools/2/inputSchema`; server tools passed over; {} for a document
    tools_from_definitions cannot read."""
    try:
        return {name: where for name, _, where in _walk(document, "", True)}
    except ValueError:
        return {}


def _walk(obj, at: str = "", servers: bool = False):
    """Yield (name, arguments schema, its pointer) of each definition.

    With `servers`, pass over server tools."""
    if isinstance(obj, list):
        for i, item in enumerate(obj):
            if servers and _is_server_tool(item):
                continue
            try:
                yield from _walk(item, child(at, i), servers)
            except ValueError as exc:
                raise ValueError(f"item {i}: {exc}") from None
        return
    if not isinstance(obj, dict):
        raise ValueError(
            f"expected a tool definition object or a list of them, got {type(obj).__name__}"
        )
    if isinstance(obj.get("result"), dict) and "tools" in obj["result"]:
        # JSON-RPC response to MCP tools/list
        yield from _walk(obj["result"]["tools"], f"{at}/result/tools", servers)
    elif isinstance(obj.get("tools"), list):
        # MCP tools/list result, or a request's tools
        yield from _walk(obj["tools"], f"{at}/tools", servers)
    elif isinstance(obj.get("functionDeclarations"), list):
        # Gemini Tool
        yield from _walk(obj["functionDeclarations"], f"{at}/functionDeclarations", servers)
    elif isinstance(obj.get("function_declarations"), list):
        yield from _walk(obj["function_declarations"], f"{at}/function_declarations", servers)
    elif obj.get("type") == "function" and isinstance(obj.get("function"), dict):
        yield _one(obj["function"], "parameters", "OpenAI Chat Completions", f"{at}/function")
    else:
        yield _single(obj, at)


def _single(obj: dict, at: str):
    for key, label in (
        ("input_schema", "Anthropic"),
        ("inputSchema", "MCP"),
        ("parameters", "OpenAI Responses or Gemini"),
        ("parametersJsonSchema", "Gemini"),
    ):
        if key in obj:
            return _one(obj, key, label, at)
    if "name" in obj and obj.get("type") in (None, "function", "custom"):
        return _one(obj, None, "tool without parameters", at)
    keys = ", ".join(sorted(obj)[:8]) or "none"
    raise ValueError(
        "unknown tool definition shape (expected name with input_schema, inputSchema, "
        f"parameters or function.parameters); keys: {keys}"
    )


def _one(obj: dict, key, label: str, at: str):
    name = obj.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError(f"{label} tool definition without a name")
    schema = obj.get(key) if key else None
    if schema is None:
        schema = {"type": "object", "properties": {}}
    if not isinstance(schema, dict):
        raise ValueError(f"tool {name!r}: {key} must be an object")
    return name, _gemini_types(schema), child(at, key) if key else at


def _gemini_types(schema):
    """Lower-case Gemini's OBJECT/STRING types and translate its `nullable`.

    Leaving JSON Schema as is."""
    if isinstance(schema, list):
        return [_gemini_types(x) for x in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "type" and isinstance(value, str) and value.isupper():
            out[key] = value.lower()
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: _gemini_types(sub) for name, sub in value.items()}
        elif key in ("items", "anyOf"):
            out[key] = _gemini_types(value)
        else:
            out[key] = value
    return from_30(out) if "nullable" in out else out


def _is_server_tool(item) -> bool:
    """A tool the provider runs.

    Anthropic web_search, OpenAI file_search, Gemini googleSearch."""
    if not isinstance(item, dict) or any(key in item for key in SCHEMA_INPUT_KEYS):
        return False
    if item and set(item) <= GEMINI_BUILT_INS:
        return True
    kind = item.get("type")
    return isinstance(kind, str) and kind not in ("function", "custom", *JSON_TYPES)


def without_server_tools(document, skipped: list):
    """Return the document without server tools, noting each in `skipped`."""
    if isinstance(document, list):
        kept = []
        for item in document:
            if _is_server_tool(item):
                skipped.append(
                    {
                        "name": item.get("name") or item.get("type") or next(iter(item)),
                        "type": item.get("type") or next(iter(item)),
                        "reason": "a server tool the provider runs; it has no input schema",
                    }
                )
            else:
                kept.append(without_server_tools(item, skipped))
        return kept
    if _is_server_tool(document):
        return without_server_tools([document], skipped)
    if isinstance(document, dict):
        for key in ("tools", "result"):
            if isinstance(document.get(key), (list, dict)):
                document = {**document, key: without_server_tools(document[key], skipped)}
    return document


def _definitions(obj):
    """Yield each tool definition object, in the shapes tools_from_definitions reads."""
    if isinstance(obj, list):
        for item in obj:
            yield from _definitions(item)
    elif isinstance(obj, dict):
        lists = [obj.get(k) for k in ("tools", "functionDeclarations", "function_declarations")]
        if isinstance(obj.get("result"), dict) and "tools" in obj["result"]:
            yield from _definitions(obj["result"]["tools"])
        elif any(isinstance(value, list) for value in lists):
            yield from _definitions(next(value for value in lists if isinstance(value, list)))
        elif obj.get("type") == "function" and isinstance(obj.get("function"), dict):
            yield obj["function"]
        else:
            yield obj


def descriptions(document) -> dict[str, str]:
    return {
        d["name"]: d["description"]
        for d in _definitions(document)
        if isinstance(d.get("name"), str)
        and isinstance(d.get("description"), str)
        and d["description"]
    }
