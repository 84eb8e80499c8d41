"""The analyser's pause on a nearly full disk.

Ingest refuses events while the database's disk has less free space than TRACEDIFF_MIN_FREE_MB
(Store.keep_headroom); the analyser is held to the same floor. Folding and analysing write
(calls, traces, search words, findings): beside a prune on a nearly full disk they once took it to
0 KiB. Below the floor it saves nothing; the events and calls stay pending and are analysed once
space returns. The pause is said once, in the log, /metrics and /api/v1/health.
"""

import logging

from ..store import NearlyFull, Store

log = logging.getLogger(__name__)


class Headroom:
    """Whether a background loop may write now, by the store's own floor check."""

    def __init__(self):
        # the refusal that paused the loop, None while it runs
        self.paused: NearlyFull | None = None

    def room(self, store: Store) -> bool:
        """Say whether the disk has room for the loop's writes.

        Log and count the change when the loop pauses or resumes, never again while it stays so."""
        try:
            store.keep_headroom()
        except NearlyFull as refusal:
            if self.paused is None:
                log.warning(
                    "analysis paused: %s; the waiting events and calls are analysed once "
                    "space returns",
                    refusal,
                )
                record_paused(True)
            self.paused = refusal
            return False
        if self.paused is not None:
            self.paused = None
            log.info("analysis resumed: the disk has TRACEDIFF_MIN_FREE_MB free again")
            record_paused(False)
        return True

    def problem(self) -> str | None:
        """Say why the loop is paused, for the health probe (None: it is not)."""
        if self.paused is None:
            return None
        return f"paused: {self.paused}; waiting calls are analysed once space returns"


def record_paused(paused: bool) -> None:
    """Set the analysis-paused gauge of /metrics."""
    # prometheus_client is imported in workers only (see metrics)
    from .gauges import ANALYSIS_PAUSED

    ANALYSIS_PAUSED.set(1 if paused else 0)
