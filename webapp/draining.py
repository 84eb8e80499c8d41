"""gunicorn's threaded worker, stopping without resetting connections that wait in the listen queue.

On SIGTERM (a stop, or the old workers of a SIGHUP reload) the stock worker stops accepting at once but
keeps its listening socket until its last request is answered; connections the kernel queued meanwhile
are reset when the socket finally closes. This worker first accepts every queued connection (they are
answered, with `Connection: close`), then closes its listening sockets at once, so a later connection
is refused (a shipper retries that) rather than accepted by the kernel and reset.
"""
from gunicorn.workers.gthread import ThreadWorker


class DrainingWorker(ThreadWorker):
    """A gthread worker that drains its listen queue before it stops."""

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
