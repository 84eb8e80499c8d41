"""Figma's REST API, as the Framelink MCP server (figma-developer-mcp) calls it.

Unseen: written after the analysis was tuned, never tuned on.

Read: GLips/Figma-Context-MCP src/mcp/tools/get-figma-data-tool.ts,
src/mcp/tools/download-figma-images-tool.ts, src/services/figma.ts,
src/services/download-figma-images.ts, src/utils/fetch-json.ts and src/services/errors/ at
c083d65. Every request is a GET on `https://api.figma.com/v1` with the token in `X-Figma-Token`,
its query written into the endpoint by hand (`?ids=${nodeId}&depth=${depth}`). A node id the model
copied from a URL (`1234-5678`) is sent with `:` (`1234:5678`). `get_figma_data` asks
`/files/{fileKey}/nodes?ids=` for a node, `/files/{fileKey}` for the whole file, `depth` only
when given, and hands back the design simplified and dumped as YAML (here a faithful subset of
the extractors: each node's id, name, type, text and children, a layout style hoisted into
`globalVars`). `download_figma_images` renders PNG nodes through
`/images/{fileKey}?ids=a,b&format=png&scale=2` (`pngScale`, default 2), downloads each URL and
answers a text listing the files saved and their pixel sizes; `fileName` and `localPath` never
reach Figma. Figma answers errors `{"status": 404, "err": "Not found"}`; the layer's text keeps
the body ("Fetch failed with status 404: Not Found\\nResponse body: ..."), a 429 becomes a text
built from the rate-limit headers (the body dropped), a 403 a list of likely causes with the
body; both tools set `isError`.
"""

import json

import yaml

from .model import (
    Answer,
    Bug,
    Source,
    Tool,
    Wire,
    drop,
    edit,
    leak,
    lose,
    mcp_text,
    n,
    path_segment,
    rename,
    s,
    schema,
)

COMMIT = "c083d65c7e002923e7cb98f4e3bdafb105e90f6d"
API = "https://api.figma.com/v1"
# a personal access token (made up), sent as the layer sends it
HEADERS = {"X-Figma-Token": "figd_Q2x8mRk4TnVw7pLs0YbZ3cHj5uAe9KdGf1XiOq6N"}
FILES = {
    "kX2pQ9wR7tY4uB8nM3vL1z": "Acme Web — Marketing site",
    "Hf83JdKq0PzLw2RtYv5NbM": "Checkout redesign 2026",
    "aZ7cVb1nMx4QwErTy8UiOp": "Design system / Components",
}
NODES = ["1:2", "12:345", "204:1877", "3105:22410", "I5666:180910;1:10515"]
IMAGES = {"1:2": (1440, 900), "12:345": (240, 64), "204:1877": (96, 96), "3105:22410": (375, 812)}
TEXTS = ["Ship faster with Acme", "Get started", "Pricing", "Log in", "Order summary"]
ROOT = "/srv/design-app"


def figma_error(status: int, err: str):
    def answer(args, rng):
        return Answer(status, {"status": status, "err": err})

    return answer


NOT_FOUND = figma_error(404, "Not found")
FORBIDDEN = figma_error(403, "Invalid token")


def rate_limited(args, rng):
    wait = rng.choice([15, 30, 60])
    headers = {
        "retry-after": str(wait),
        "x-figma-plan-tier": rng.choice(["starter", "pro", "org"]),
        "x-figma-rate-limit-type": rng.choice(["low", "high"]),
    }
    return Answer(429, {"status": 429, "err": "Rate limit exceeded"}, headers)


REASONS = {400: "Bad Request", 403: "Forbidden", 404: "Not Found", 429: "Too Many Requests"}


def failure_text(endpoint: str, answer: Answer) -> str:
    """The message `FigmaService.request` throws for a failed answer."""
    body = json.dumps(answer.body, separators=(",", ":"))
    if answer.status == 429:
        headers = answer.headers
        out = "Figma API rate limit hit (429)."
        out += f" Retry after {headers['retry-after']} seconds."
        if headers.get("x-figma-rate-limit-type") == "low":
            out += " Your Figma seat type (Viewer or Collaborator) has a lower API rate limit."
        if headers.get("x-figma-plan-tier") in ("starter", "student"):
            out += f" Your {headers['x-figma-plan-tier']} plan has limited API access."
        return out + " See https://developers.figma.com/docs/rest-api/rate-limits/"
    if answer.status == 403:
        return (
            f"Request to Figma API endpoint '{endpoint}' returned 403 Forbidden.\n"
            f"Response body: {body}\n\n"
            "Depending on the specific error message above, the issue may be one of the "
            "following:\n- The access token is missing required scopes (File content: Read, "
            "Dev resources: Read)\n- The access token has been revoked, mistyped, or (for OAuth) "
            "expired\n\nTroubleshooting guide: "
            "https://www.framelink.ai/docs/troubleshooting#cannot-access-file\n\n"
            "Instructions: explain the specific reason from the response body above to the user "
            "in plain language and walk them through resolving it."
        )
    return (
        f"Failed to make request to Figma API endpoint '{endpoint}': Fetch failed with status "
        f"{answer.status}: {REASONS[answer.status]}\nResponse body: {body}"
    )


def endpoint_of(wire: Wire) -> str:
    """The endpoint as the layer wrote it: path after /v1 and the query as text."""
    query = "&".join(f"{k}={v}" for k, v in wire.query)
    return wire.url[len(API) :] + (f"?{query}" if query else "")


def file_meta(file_key: str, rng) -> dict:
    return {
        "name": FILES[file_key],
        "lastModified": f"2026-11-0{rng.randint(1, 9)}T1{rng.randint(0, 9)}:2{rng.randint(0, 9)}:11Z",
        "thumbnailUrl": f"https://s3-alpha.figma.com/thumbnails/{rng.getrandbits(64):016x}",
        "version": str(rng.randint(10**12, 10**13)),
        "role": rng.choice(["owner", "editor", "viewer"]),
        "editorType": "figma",
        "linkAccess": "inherit",
    }


def child(rng, index: int) -> dict:
    kind = rng.choice(["TEXT", "RECTANGLE", "INSTANCE"])
    node = {
        "id": f"{rng.randint(2, 9999)}:{rng.randint(1, 99999)}",
        "name": f"{kind.title()} {index}",
        "type": kind,
    }
    if kind == "TEXT":
        node["characters"] = rng.choice(TEXTS)
        node["name"] = node["characters"]
    if kind == "INSTANCE":
        node["componentId"] = f"{rng.randint(1, 999)}:{rng.randint(1, 9999)}"
        node["name"] = rng.choice(["Button/Primary", "Icon/Arrow", "Avatar"])
    node["absoluteBoundingBox"] = {
        "x": rng.randint(0, 1200),
        "y": rng.randint(0, 800),
        "width": rng.randint(16, 400),
        "height": rng.randint(16, 120),
    }
    return node


def frame(rng, node_id: str) -> dict:
    width, height = IMAGES.get(node_id, (1280, 720))
    return {
        "id": node_id,
        "name": rng.choice(["Hero", "Header", "Checkout / Summary", "Card"]),
        "type": "FRAME",
        "layoutMode": rng.choice(["VERTICAL", "HORIZONTAL"]),
        "itemSpacing": rng.choice([8, 16, 24]),
        "absoluteBoundingBox": {"x": 0, "y": 0, "width": width, "height": height},
        "children": [child(rng, i) for i in range(rng.randint(1, 3))],
    }


# --- get_figma_data -------------------------------------------------------------------------------


def data_args(rng):
    args = {"fileKey": rng.choice(list(FILES))}
    if rng.random() < 0.75:
        node = rng.choice(NODES)
        # a model copies the id from the URL's node-id=1234-5678 as often as not
        args["nodeId"] = node.replace(":", "-") if rng.random() < 0.5 and ";" not in node else node
    if rng.random() < 0.15:
        args["depth"] = rng.choice([1, 2, 3])
    return args


def data_request(args):
    query = []
    url = f"{API}/files/{args['fileKey']}"
    if "nodeId" in args:
        url += "/nodes"
        query.append(("ids", args["nodeId"].replace("-", ":")))
    if args.get("depth"):
        query.append(("depth", str(args["depth"])))
    return Wire("GET", url, query, dict(HEADERS))


def data_response(args, rng):
    meta = file_meta(args["fileKey"], rng)
    if "nodeId" in args:
        node_id = args["nodeId"].replace("-", ":")
        entry = {
            "document": frame(rng, node_id),
            "components": {},
            "componentSets": {},
            "schemaVersion": 0,
            "styles": {},
        }
        return Answer(200, {**meta, "nodes": {node_id: entry}})
    page = {
        "id": "0:1",
        "name": "Page 1",
        "type": "CANVAS",
        "children": [frame(rng, rng.choice(NODES[:4]))],
    }
    document = {"id": "0:0", "name": "Document", "type": "DOCUMENT", "children": [page]}
    body = {
        "document": document,
        "components": {},
        "componentSets": {},
        "schemaVersion": 0,
        "styles": {},
        **meta,
    }
    return Answer(200, body)


def simplified(node: dict, styles: dict) -> dict:
    """A node as the extractors simplify it (text layers lose their layer name)."""
    out = {"id": node["id"]}
    if node["type"] != "TEXT":
        out["name"] = node["name"]
    out["type"] = node["type"]
    if node["type"] == "TEXT":
        out["text"] = node["characters"]
    if node["type"] == "INSTANCE":
        out["componentId"] = node["componentId"]
    if "layoutMode" in node:
        key = f"layout_{len(styles) + 1:04X}"
        styles[key] = {
            "mode": "column" if node["layoutMode"] == "VERTICAL" else "row",
            "gap": f"{node['itemSpacing']}px",
            "sizing": {"horizontal": "fixed", "vertical": "fixed"},
        }
        out["layout"] = key
    if node.get("children"):
        out["children"] = [simplified(c, styles) for c in node["children"]]
    return out


def data_result(args, answer):
    wire = data_request(args)
    if answer.status >= 400:
        text = f"Error fetching file: {failure_text(endpoint_of(wire), answer)}"
        return mcp_text(text, is_error=True)
    body = answer.body
    if "nodes" in body:
        roots = [entry["document"] for entry in body["nodes"].values()][:1]
    else:
        roots = body["document"]["children"]
    styles = {}
    design = {
        "metadata": {"name": body["name"], "components": {}, "componentSets": {}},
        "nodes": [simplified(node, styles) for node in roots],
        "globalVars": {"styles": styles},
    }
    return mcp_text(yaml.safe_dump(design, sort_keys=False, allow_unicode=True))


GET_FIGMA_DATA = Tool(
    "figma",
    "get_figma_data",
    Source("GLips/Figma-Context-MCP", "src/mcp/tools/get-figma-data-tool.ts", COMMIT),
    "Get comprehensive Figma file data including layout, content, visuals, and component "
    "information",
    {
        **schema(
            {
                "fileKey": s(
                    "The key of the Figma file to fetch, often found in a provided URL like "
                    "figma.com/(file|design)/<fileKey>/...",
                    pattern="^[a-zA-Z0-9]+$",
                ),
                "nodeId": s(
                    "The ID of the node to fetch, often found as URL parameter "
                    "node-id=<nodeId>, always use if provided.",
                    pattern="^I?\\d+[:|-]\\d+(?:;\\d+[:|-]\\d+)*$",
                ),
                "depth": n(
                    "OPTIONAL. Do NOT use unless explicitly requested by the user. Controls how "
                    "many levels deep to traverse the node tree."
                ),
            },
            ["fileKey"],
        ),
        "additionalProperties": False,
    },
    data_args,
    data_request,
    data_response,
    [NOT_FOUND, FORBIDDEN, rate_limited],
    data_result,
    [
        Bug(
            "value_changed",
            edit("query", "ids", lambda v: v.replace(":", "-")),
            "/nodeId",
            "query:/ids",
        ),
        Bug("renamed_key", rename("query", "ids", "id"), "/nodeId", "query:/ids"),
        Bug("dropped", drop("query", "depth"), "/depth", "query:/depth"),
        Bug(
            "wrong_path_id",
            path_segment(2, lambda v: next(k for k in FILES if k != v)),
            "/fileKey",
            "path:/2",
        ),
        Bug("error_fields_lost", lose("/err"), response="/err", error=True),
    ],
)

# --- download_figma_images ------------------------------------------------------------------------


def images_args(rng):
    ids = rng.sample(list(IMAGES), rng.randint(1, 3))
    nodes = []
    for node_id in ids:
        name = {"1:2": "hero", "12:345": "logo", "204:1877": "avatar", "3105:22410": "mobile"}
        node = {
            "nodeId": node_id if rng.random() < 0.6 else node_id.replace(":", "-"),
            "fileName": f"{name[node_id]}.png",
        }
        if rng.random() < 0.2:
            node["needsCropping"] = False
        nodes.append(node)
    args = {
        "fileKey": rng.choice(list(FILES)),
        "nodes": nodes,
        "localPath": rng.choice(["public/images", "src/assets/icons", "assets"]),
    }
    if rng.random() < 0.4:
        args["pngScale"] = rng.choice([1, 2, 3, 4])
    return args


def images_request(args):
    ids = ",".join(node["nodeId"].replace("-", ":") for node in args["nodes"])
    # zod's default: pngScale is 2 when the model leaves it out
    scale = args.get("pngScale", 2)
    query = [("ids", ids), ("format", "png"), ("scale", str(scale))]
    return Wire("GET", f"{API}/images/{args['fileKey']}", query, dict(HEADERS))


def images_response(args, rng):
    images = {}
    for node in args["nodes"]:
        node_id = node["nodeId"].replace("-", ":")
        images[node_id] = (
            f"https://figma-alpha-api.s3.us-west-2.amazonaws.com/images/{rng.getrandbits(128):032x}"
        )
    return Answer(200, {"err": None, "images": images})


def images_result(args, answer):
    wire = images_request(args)
    if answer.status >= 400:
        text = f"Failed to download images: {failure_text(endpoint_of(wire), answer)}"
        return mcp_text(text, is_error=True)
    scale = args.get("pngScale", 2)
    lines = []
    for node in args["nodes"]:
        if not answer.body["images"].get(node["nodeId"].replace("-", ":")):
            continue
        width, height = IMAGES[node["nodeId"].replace("-", ":")]
        lines.append(f"- {node['fileName']}: {width * scale}x{height * scale}")
    folder = f"{ROOT}/{args['localPath']}"
    return mcp_text(f"Downloaded {len(lines)} images to `{folder}`:\n" + "\n".join(lines))


DOWNLOAD_IMAGES = Tool(
    "figma",
    "download_figma_images",
    Source("GLips/Figma-Context-MCP", "src/mcp/tools/download-figma-images-tool.ts", COMMIT),
    "Download SVG and PNG images used in a Figma file based on the IDs of image or icon nodes. "
    f"Images will be saved relative to the server's image directory: {ROOT}",
    {
        **schema(
            {
                "fileKey": s(
                    "The key of the Figma file containing the images", pattern="^[a-zA-Z0-9]+$"
                ),
                "nodes": {
                    "type": "array",
                    "description": "The nodes to fetch as images",
                    "items": {
                        "type": "object",
                        "properties": {
                            "nodeId": s(
                                "The ID of the Figma image node to fetch, formatted as 1234:5678",
                                pattern="^I?\\d+[:|-]\\d+(?:;\\d+[:|-]\\d+)*$",
                            ),
                            "imageRef": s("If a node has an imageRef fill, include this."),
                            "gifRef": s("If a node has a gifRef fill (animated GIF), include it."),
                            "fileName": s(
                                "The local name for saving the fetched file, including "
                                "extension. png, svg, or gif.",
                                pattern="^[a-zA-Z0-9_.-]+\\.(png|svg|gif)$",
                            ),
                            "needsCropping": {"type": "boolean"},
                            "requiresImageDimensions": {"type": "boolean"},
                            "filenameSuffix": s(pattern="^[a-zA-Z0-9_-]+$"),
                        },
                        "required": ["nodeId", "fileName"],
                        "additionalProperties": False,
                    },
                },
                "pngScale": n(
                    "Export scale for PNG images. Optional, defaults to 2 if not specified.",
                    exclusiveMinimum=0,
                    default=2,
                ),
                "localPath": s(
                    "The directory to save images in, relative to the server's image directory."
                ),
            },
            ["fileKey", "nodes", "localPath"],
        ),
        "additionalProperties": False,
    },
    images_args,
    images_request,
    images_response,
    [NOT_FOUND, FORBIDDEN, rate_limited],
    images_result,
    [
        Bug(
            "list_joined",
            edit("query", "ids", lambda v: v.replace(",", ";") if "," in v else None),
            "/nodes",
            "query:/ids",
        ),
        Bug(
            "value_changed",
            edit("query", "scale", lambda v: str(int(v) + 1)),
            "/pngScale",
            "query:/scale",
        ),
        Bug("dropped", drop("query", "format"), None, "query:/format"),
        Bug(
            "leaked_field",
            leak("query", "use_absolute_bounds", "true"),
            None,
            "query:/use_absolute_bounds",
        ),
        Bug("error_fields_lost", lose("/err"), response="/err", error=True),
    ],
)

TOOLS = [GET_FIGMA_DATA, DOWNLOAD_IMAGES]
