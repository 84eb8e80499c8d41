"""What operations ask of the store.

A write probe, the analysis backlog, sizes (mixed into Store)."""

import time
from datetime import UTC, datetime

from .codec import utc_now


class OpsReads:
    """Cheap reads (and one tiny write) for readiness and metrics."""

    def probe_write(self) -> None:
        """Commit one tiny row, so a read-only file or a full disk shows.

        Raise StoreUnavailable."""
        with self.write() as conn:
            conn.execute(
                "INSERT INTO progress (name, seq) VALUES ('ready_probe', ?) "
                "ON CONFLICT (name) DO UPDATE SET seq = excluded.seq",
                (int(time.time()),),
            )

    def note_server_url(self, url: str) -> None:
        """Record the address `tracediff serve` is reached at.

        For commands run beside it (`alerts test`)."""
        with self.write() as conn:
            conn.execute(
                "INSERT INTO server_urls (name, url, noted_at) VALUES ('serve', ?, ?) ON CONFLICT "
                "(name) "
                "DO UPDATE SET url = excluded.url, noted_at = excluded.noted_at",
                (url, utc_now()),
            )

    def server_url(self) -> str | None:
        """Return the address `tracediff serve` last recorded.

        None when no server has run on this database."""
        row = self.db.execute("SELECT url FROM server_urls WHERE name = 'serve'").fetchone()
        return row[0] if row else None

    def backlog(self) -> dict:
        """Return the backlog: events, calls and the oldest wait.

        Events waiting for projection, calls waiting for analysis, and the oldest wait in
        seconds."""
        conn = self.db.conn
        events, first_waiting = self.waiting_events(conn)
        calls, oldest_seq = conn.execute(self.sql.OLDEST_PENDING).fetchone()
        seqs = [seq for seq in (first_waiting, oldest_seq) if seq]
        received = [
            row[0]
            for seq in seqs
            for row in conn.execute(
                "SELECT received_at FROM events WHERE seq >= ? ORDER BY seq LIMIT 1", (seq,)
            )
        ]
        ages = [time.time() - _epoch(text) for text in received]
        return {
            "events_waiting": events,
            "calls_waiting": calls,
            "oldest_waiting_seconds": round(max(ages), 3) if ages else 0.0,
        }

    def release_claims(self) -> int:
        """Free the claims of calls a stopped server was analysing.

        So a new one takes them at once.

        Only a sole server does (see Engine.sole_server): on a shared database other nodes' claims
        look the same as a stopped node's; they expire after CLAIM_SECONDS."""
        if not self.sole_server:
            return 0
        with self.write() as conn:
            return conn.execute(
                "UPDATE calls SET claimed_at = NULL WHERE analyzed_version < version AND "
                "claimed_at IS NOT NULL"
            ).rowcount

    def release_alert_leases(self) -> int:
        """Make the alerts a stopped server was sending due now.

        So a new one retries them at once instead of after their lease (LEASE_S). Only a sole server
        does: another node's lease expires after LEASE_S."""
        if not self.sole_server:
            return 0
        with self.write() as conn:
            return conn.execute(
                "UPDATE alert_outbox SET next_attempt_at = ? WHERE state = 'sending'", (utc_now(),)
            ).rowcount

    def quarantine_count(self) -> int:
        return self.db.conn.execute("SELECT count(*) FROM quarantine").fetchone()[0]


def _epoch(text: str) -> float:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC).timestamp()
