"""gunicorn's threaded worker.

Fair to health probes and stopping without resetting connections.

It accepts a connection only while one of its threads is free. The stock worker accepts up to
`worker_connections` (1,000) and queues them behind its threads: a worker whose threads all waited
for dribbled bodies queued health probes behind them while the other worker sat idle. Now a waiting
connection stays in the kernel's listen queue, where any worker with a free thread takes it.

On SIGTERM (a stop, or the old workers of a SIGHUP reload) the stock worker stops accepting at once
but keeps its listening socket until its last request is answered; connections the kernel queued
meanwhile are reset when the socket finally closes. This worker first accepts every queued
connection (they are answered, with `Connection: close`), then closes its listening sockets at once,
so a later connection is refused (a shipper retries that) rather than accepted by the kernel and
reset. On a stop (not a reload: the master has closed its copy of the socket) a filter first makes
the socket ignore new SYNs, so no connection can complete between the last accept and the close;
their senders retry the SYN after a second and are refused.

An app's `Connection: close` (a 408 or a 400 bad_body, whose connection is closed) is sent as such:
gunicorn drops the header as hop-by-hop and would announce `keep-alive`.

Idle connections cost no thread. The stock worker hands a new connection to a thread at once, which
waits up to 5 s for its first bytes: 400 idle TCP connections held every thread, and health probes
waited behind them for most of a minute. Here a new connection waits in the poller; it gets a thread
when its first bytes arrive, and is closed if none come within `keepalive` seconds, as a kept-alive
one is. A thread reading a request's headers gives up after HEADER_SECONDS in all (a client
dribbling a byte at a time, which a socket timeout would not catch); the app bounds the body
(TRACEDIFF_BODY_TIMEOUT). At most `worker_connections` connections stay open per worker: past it,
the connection idle longest is closed to make room, so a probe is answered ahead of idle ones.

A request gunicorn cannot parse (a request line over its limit, too many headers, a bad chunk size)
never reaches the app; gunicorn answers it with an HTML page, which this worker makes the one JSON
error shape every client of tracediff reads.
"""

import contextlib
import errno
import selectors
import socket
import time
from functools import partial

from gunicorn import util
from gunicorn.http import wsgi
from gunicorn.workers.gthread import _DEFER, TConn, ThreadWorker

from ..common import jsontext
from .listeners import has_newer_sibling, held_by, ignore_new_connections

# how long a stopping worker keeps accepting handshakes the kernel began before the SYN filter
HANDSHAKE_LINGER = 0.25
# a request line and headers arrive within this, or the connection is closed
HEADER_SECONDS = 10
# how long a worker told to stop waits, not accepting, while the master still holds the listener: a
# SIGTERM to the whole group (systemd's default, killpg) reaches the worker before a busy master
# closes its copy
MASTER_LETS_GO_SECONDS = 5


def write_json_error(sock, status: int, reason: str, message: str) -> None:
    """Answer a request gunicorn refused before the app saw it.

    As {"error": {code, message, retryable}}."""
    # "URI Too Long" -> uri_too_long, as werkzeug names them
    code = reason.lower().replace(" ", "_")
    body = jsontext.dumps(
        {"error": {"code": code, "message": message or reason, "retryable": status >= 500}}
    )
    head = (
        f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    util.write_nonblock(sock, head.encode("latin-1") + body)


def _process_headers(original):
    """Wrap Response.process_headers so `Connection: close` closes.

    An app's `Connection: close` closes the connection."""

    def process_headers(self, headers):
        if any(
            name.lower() == "connection" and value.strip().lower() == "close"
            for name, value in headers
        ):
            self.force_close()
        return original(self, headers)

    process_headers.tracediff = True
    return process_headers


class DrainingWorker(ThreadWorker):
    """A gthread worker that drains on stop and refuses in JSON.

    It accepts only with a free thread."""

    def __init__(self, *args, **kwargs):
        # connections handed to the thread pool and not finished (main thread only)
        self.busy = 0
        self.listeners_closed = False
        # set by the first stop request: until then the worker waits for the master to let go
        self.master_wait_until = None
        # connection -> when its headers must be in (threads add, the main loop enforces)
        self.reading = {}
        super().__init__(*args, **kwargs)

    @property
    def worker_connections(self) -> int:
        """The run loop accepts while nr_conns is below this.

        Only while a thread is free (past the cap on open connections, accepting one closes the
        idlest)."""
        # told to stop: the kernel queues new connections for the drain (or a reload's new workers)
        if self.master_wait_until is not None:
            return 0
        free = self.cfg.threads - self.busy
        return self.nr_conns + free if free > 0 else 0

    @worker_connections.setter
    def worker_connections(self, cap: int) -> None:
        self._connection_cap = cap

    def init_process(self):
        # the worker's error path calls util.write_error by name; this process serves tracediff
        # alone
        util.write_error = write_json_error
        if not getattr(wsgi.Response.process_headers, "tracediff", False):
            wsgi.Response.process_headers = _process_headers(wsgi.Response.process_headers)
        super().init_process()

    def accept(self, listener):
        """Accept a connection into the poller.

        It gets a thread once it sends something."""
        # the select batch that ran drain_then_stop may still name a listener
        if self.listeners_closed:
            return
        try:
            client, address = listener.accept()
        except OSError as error:
            if error.errno in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                return
            raise
        self.nr_conns += 1
        # non-blocking until it has a thread
        conn = TConn(self.cfg, client, address, listener.getsockname())
        # its first bytes are due as a kept-alive request's
        conn.timeout = time.monotonic() + self.cfg.keepalive
        self.pending_conns.append(conn)
        self.poller.register(
            conn.sock, selectors.EVENT_READ, partial(self.on_pending_socket_readable, conn)
        )
        if self.nr_conns > self._connection_cap:
            self.close_idlest()

    def close_idlest(self) -> None:
        """Close the connection idle longest.

        Waiting for its first request, or kept alive between two."""
        waiting = [queue for queue in (self.pending_conns, self.keepalived_conns) if queue]
        if not waiting:
            return
        queue = min(waiting, key=lambda q: q[0].timeout)
        conn = queue.popleft()
        with contextlib.suppress(OSError, KeyError, ValueError):
            self.poller.unregister(conn.sock)
        self.nr_conns -= 1
        conn.close()

    def handle(self, conn):
        self.reading[conn] = time.monotonic() + HEADER_SECONDS
        try:
            return super().handle(conn)
        finally:
            self.reading.pop(conn, None)

    def handle_request(self, req, conn):
        # the headers are in: the app bounds the body (TRACEDIFF_BODY_TIMEOUT)
        self.reading.pop(conn, None)
        return super().handle_request(req, conn)

    def murder_pending(self):
        super().murder_pending()
        # the run loop passes here at least once a second: look again whether the master let go
        if self.alive and self.master_wait_until is not None:
            self.drain_then_stop()
        now = time.monotonic()
        for conn, deadline in list(self.reading.items()):
            if deadline < now and self.reading.pop(conn, None) is not None:
                # ends the thread's recv at once: the parser sees the end
                with contextlib.suppress(OSError):
                    conn.sock.shutdown(socket.SHUT_RD)

    def enqueue_req(self, conn):
        self.busy += 1
        super().enqueue_req(conn)

    def finish_request(self, conn, fs):
        self.busy -= 1
        if (
            not self.alive
            and not fs.cancelled()
            and fs.exception() is None
            and fs.result() is _DEFER
        ):
            # a connection that sent nothing for 5 s while stopping: gthread would fail on it and
            # reset it
            self.nr_conns -= 1
            conn.close(graceful=True)
            return
        super().finish_request(conn, fs)

    def handle_exit(self, sig, frame):
        # run on the worker's main loop, not inside the signal handler
        if self.alive:
            self.method_queue.defer(self.drain_then_stop)

    def drain_then_stop(self) -> None:
        """Accept what the kernel queued, stop accepting, close the listeners.

        The listening sockets."""
        if not self.alive:
            return
        stopping = [listener for listener in self.sockets if not held_by(self.ppid, listener)]
        if self.master_wait_until is None:
            # a reload's master started new workers before stopping this one, and keeps the socket
            reload = has_newer_sibling(self.ppid)
            self.master_wait_until = time.monotonic() + (0 if reload else MASTER_LETS_GO_SECONDS)
        # closing now would leave what the kernel queues meanwhile to be reset at the master's close
        if len(stopping) < len(self.sockets) and time.monotonic() < self.master_wait_until:
            return
        # the master let go: the server stops (a reload keeps the socket)
        for listener in stopping:
            ignore_new_connections(listener)
        linger_until = time.monotonic() + (HANDSHAKE_LINGER if stopping else 0)
        # a reload: the master and the new workers hold the socket and answer what is queued
        while stopping:
            accepted = sum(self._accept_queued(listener) for listener in self.sockets)
            if not accepted and time.monotonic() >= linger_until:
                break
            if not accepted:
                time.sleep(0.02)
        self.alive = False
        self.set_accept_enabled(False)
        for listener in self.sockets:
            listener.close()
        self.listeners_closed = True

    def _accept_queued(self, listener) -> int:
        """Accept every connection the kernel has queued on one listener.

        Return how many."""
        before, count = -1, self.nr_conns
        # accept() takes one connection; it does nothing once none wait
        while self.nr_conns != before:
            before = self.nr_conns
            self.accept(listener)
        return self.nr_conns - count
