"""A real agent of one Node framework (node/record.mjs).

Its OTLP/HTTP exports recorded to a file.

    python tests/instrumentations/node_frameworks.py FRAMEWORK one|two OUT_PREFIX [NODE_DIR]

NODE_DIR (default /tmp/node-frameworks) holds node/package.json's packages (`npm ci` there,
tests/instrumentations/README.md); the script and the recipe it imports are copied beside them. The
stand-in model (OpenAI chat completions; streamed for vercel-ai.stream) asks for one or two
`find_orders` calls in one turn; the orders API is the local stand-in. OUT_PREFIX.pb holds the
protobuf posts as sent, OUT_PREFIX.json the OTLP/JSON posts as Node's JSON exporter sent them.
"""

import json
import os
import shutil
import struct
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
# tests/: the stand-ins
sys.path.insert(0, str(HERE.parent))
from agent_loop import CALLS, openai_model  # noqa: E402
from frameworks import StreamingModel  # noqa: E402
from standins import ORDERS, StandIn, orders_api  # noqa: E402

RECIPE = HERE.parent.parent / "docs" / "recipes" / "node_otel.mjs"
NODE_DIR = Path("/tmp/node-frameworks")


class Collector:
    """An OTLP/HTTP receiver stand-in reading chunked bodies (Node's exporters send no
    Content-Length): it keeps each post's path and body, in order."""

    def __init__(self):
        self.posts = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                outer.posts.append((self.path, self.body()))
                self.send_response(200)
                self.send_header("Content-Type", self.headers.get("Content-Type", ""))
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            def body(self) -> bytes:
                if "chunked" not in self.headers.get("Transfer-Encoding", ""):
                    return self.rfile.read(int(self.headers.get("Content-Length") or 0))
                data = b""
                while size := int(self.rfile.readline().split(b";")[0], 16):
                    data += self.rfile.read(size)
                    self.rfile.readline()
                self.rfile.readline()
                return data

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def save(posts: list, prefix: Path) -> None:
    """Write the protobuf posts framed as agent_loop.py does, the JSON ones as OTLP/JSON."""
    with open(f"{prefix}.pb", "wb") as out:
        for path, body in posts:
            if not path.startswith("/json/"):
                out.write(path.encode() + b"\n" + struct.pack(">I", len(body)) + body)
    as_json = [
        {"path": path.removeprefix("/json"), "body": json.loads(body)}
        for path, body in posts
        if path.startswith("/json/")
    ]
    Path(f"{prefix}.json").write_text(json.dumps(as_json, indent=1))


def main(framework: str, turn: str, prefix: str, node_dir: str = str(NODE_DIR)) -> None:
    node_dir = Path(node_dir)
    for source in (HERE / "node" / "record.mjs", RECIPE):
        shutil.copy(source, node_dir / source.name)
    collector = Collector()
    streaming = framework.endswith(".stream")
    model_server = StreamingModel(CALLS[turn]) if streaming else StandIn(openai_model(CALLS[turn]))
    with StandIn(orders_api) as orders, model_server as model:
        env = {"MODEL_URL": model.url, "ORDERS_URL": orders.url, "COLLECTOR_URL": collector.url}
        done = subprocess.run(
            ["node", str(node_dir / "record.mjs"), framework, turn],
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr[-4000:]
        assert len(orders.requests) == len(CALLS[turn]), orders.requests
        assert all(r["body"]["limit"] == "5" for r in orders.requests)
    save(collector.posts, Path(prefix))
    print(
        f"{len(collector.posts)} posts, {sum(len(b) for _, b in collector.posts)} bytes; orders "
        f"{ORDERS['total']}; {done.stdout.strip()}"
    )


if __name__ == "__main__":
    main(*sys.argv[1:5])
