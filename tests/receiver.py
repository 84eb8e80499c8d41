"""A real local webhook receiver for the alert tests.

Verifies every signature, can fail its first tries."""

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import orjson
from standardwebhooks import Webhook


class Receiver:
    """An HTTP server on 127.0.0.1 that records what it is sent and answers from a script of
    statuses."""

    def __init__(self, fail_first: int = 0, status: int = 503, headers: dict | None = None):
        self.fail_first, self.fail_status, self.fail_headers = fail_first, status, headers or {}
        self.secret = None
        # keep the answer to the next accepted message this long (a sender killed mid-request)
        self.hold_s = 0.0
        self.holding = threading.Event()
        self.attempts, self.accepted = [], []
        # the path and query of every request, as sent
        self.paths = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                receiver.paths.append(self.path)
                status, extra = receiver.answer(dict(self.headers), body)
                receiver.hold(status)
                try:
                    self.send_response(status)
                    for name, value in extra.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                # the sender is gone (killed while waiting)
                except OSError:
                    pass

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def answer(self, headers: dict, body: bytes) -> tuple[int, dict]:
        lowered = {k.lower(): v for k, v in headers.items()}
        with self.lock:
            self.attempts.append((lowered, body))
            if len(self.attempts) <= self.fail_first:
                return self.fail_status, self.fail_headers
            # a webhook rule: the signature must hold
            if self.secret is not None:
                Webhook(self.secret).verify(body, lowered)
            self.accepted.append((lowered, orjson.loads(body)))
            return 200, {}

    def hold(self, status: int) -> None:
        """Wait `hold_s` before answering the first accepted message after it was set."""
        with self.lock:
            wait, self.hold_s = (self.hold_s, 0.0) if status == 200 else (0.0, self.hold_s)
        if wait:
            self.holding.set()
            time.sleep(wait)

    def close(self):
        self.server.shutdown()
        self.server.server_close()
