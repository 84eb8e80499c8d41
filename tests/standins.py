"""Small local HTTP servers the recipes talk to.

A model API that asks for one tool call, an orders API."""

import gzip
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ARGUMENTS = {"status": "paid", "limit": 5}
ORDERS = {"orders": [{"id": "ord_1", "status": "paid", "total_cents": 1250}], "total": 1}


class StandIn:
    """A threaded HTTP server answering POSTs with `answer(path, body)`; it keeps every request it
    got."""

    def __init__(self, answer, compress: bool = False):
        self.answer, self.requests = answer, []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                body = json.loads(raw) if raw else None
                outer.requests.append(
                    {"path": self.path, "headers": dict(self.headers), "body": body}
                )
                status, doc = outer.answer(self.path, body)
                data = json.dumps(doc).encode()
                self.send_response(status)
                if compress and "gzip" in self.headers.get("Accept-Encoding", ""):
                    # as an API behind a compressing proxy answers
                    data = gzip.compress(data)
                    self.send_header("Content-Encoding", "gzip")
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            # a GET has no body: Content-Length is absent, the body None
            do_GET = do_POST

            # keep the test output quiet
            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def orders_api(path, body):
    """The backing API: a search (POST /orders/search, or GET /orders?...) answers its orders,
    anything else 404."""
    if path == "/orders/search" or path.startswith("/orders?"):
        return 200, ORDERS
    return 404, {"error": {"code": "not_found", "message": path}}


def openai_chat_calling(tool: str):
    """Return an OpenAI chat completions stand-in that asks for `tool`, then answers in text."""

    def answer(path, body):
        if not path.endswith("/chat/completions"):
            return 404, {"error": {"message": path, "type": "invalid_request_error"}}
        answered = any(m.get("role") == "tool" for m in body["messages"])
        message = {"role": "assistant", "content": "You have 1 paid order.", "refusal": None}
        if not answered:
            message = {
                "role": "assistant",
                "content": None,
                "refusal": None,
                "tool_calls": [
                    {
                        "id": "call_standin_01",
                        "type": "function",
                        "function": {"name": tool, "arguments": json.dumps(ARGUMENTS)},
                    }
                ],
            }
        return 200, {
            "id": "chatcmpl-standin",
            "object": "chat.completion",
            "created": 1764547200,
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": None,
                    "finish_reason": "stop" if answered else "tool_calls",
                }
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }

    return answer


openai_chat = openai_chat_calling("find_orders")


def anthropic_messages(path, body):
    """Anthropic messages: a tool_use block first, text once a tool_result is there."""
    if not path.startswith("/v1/messages"):
        return 404, {"type": "error", "error": {"type": "not_found_error", "message": path}}
    answered = any(
        type(m["content"]) is list and any(b.get("type") == "tool_result" for b in m["content"])
        for m in body["messages"]
    )
    content = [{"type": "text", "text": "You have 1 paid order."}]
    if not answered:
        content = [
            {
                "type": "tool_use",
                "id": "toolu_standin_01",
                "name": "find_orders",
                "input": ARGUMENTS,
            }
        ]
    return 200, {
        "id": "msg_standin",
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": content,
        "stop_reason": "end_turn" if answered else "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }
