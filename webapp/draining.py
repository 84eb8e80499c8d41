"""gunicorn's threaded worker, stopping without resetting connections that wait in the listen queue.

On SIGTERM (a stop, or the old workers of a SIGHUP reload) the stock worker stops accepting at once but
keeps its listening socket until its last request is answered; connections the kernel queued meanwhile
are reset when the socket finally closes. This worker first accepts every queued connection (they are
answered, with `Connection: close`), then closes its listening sockets at once, so a later connection
is refused (a shipper retries that) rather than accepted by the kernel and reset.

A request gunicorn cannot parse (a request line over its limit, too many headers, a bad chunk size)
never reaches the app; gunicorn answers it with an HTML page, which this worker makes the one JSON
error shape every client of tracediff reads.
"""
import orjson
from gunicorn import util
from gunicorn.workers.gthread import ThreadWorker


def write_json_error(sock, status: int, reason: str, message: str) -> None:
    """Answer a request gunicorn refused before the app saw it, as {"error": {code, message, retryable}}."""
    code = reason.lower().replace(" ", "_")  # "URI Too Long" -> uri_too_long, as werkzeug names them
    body = orjson.dumps({"error": {"code": code, "message": message or reason, "retryable": status >= 500}})
    head = (f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n")
    util.write_nonblock(sock, head.encode("latin-1") + body)


class DrainingWorker(ThreadWorker):
    """A gthread worker that drains its listen queue before it stops and refuses in JSON."""

    def init_process(self):
        # the worker's error path calls util.write_error by name; this process serves tracediff alone
        util.write_error = write_json_error
        super().init_process()

    def handle_exit(self, sig, frame):
        if self.alive:  # run on the worker's main loop, not inside the signal handler
            self.method_queue.defer(self.drain_then_stop)

    def drain_then_stop(self) -> None:
        """Accept what the kernel has queued, stop accepting, and close the listening sockets."""
        if not self.alive:
            return
        for listener in self.sockets:
            before = -1
            while self.nr_conns != before:  # accept() takes one connection; it does nothing once none wait
                before = self.nr_conns
                self.accept(listener)
        self.alive = False
        self.set_accept_enabled(False)
        for listener in self.sockets:
            listener.close()
