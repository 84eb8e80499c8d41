"""Analysis bookkeeping, a mixin of Store.

Which calls wait for analysis, and storing what it found.

A call is claimed before it is analysed (so one worker analyses it), and an analysis is stored only
if the call did not change meanwhile; the problems and alerts it causes go in the same transaction.
"""

import time

from .codec import utc_now
from .errors import StoreUnavailable
from .hours import hour_keys, refresh_hours
from .problems import apply_groupings
from .rows import analysis_row

CLAIM_SECONDS = 30
# a trace read waits and projects about this long at most; the rest it reads through its events
READ_CATCH_UP_SECONDS = 0.5
# The same on both engines: each engine's save_rows runs it and counts what it updated.
SAVE_ANALYSIS = """UPDATE calls SET analysis = :analysis, analyzed_version = :version, claimed_at =
  NULL,
 worst = :worst, errors = :errors, warnings = :warnings, infos = :infos, kinds = :kinds, loud_kinds
   = :loud_kinds,
 contract_digest = :contract_digest
 WHERE trace_id = :trace_id AND call_id = :call_id AND version = :version"""
RELEASE_CLAIM = "UPDATE calls SET claimed_at = NULL WHERE trace_id = ? AND call_id = ?"


class AnalysisBookkeeping:
    """Mixin of Store: which calls wait for analysis, and their results.

    Needs write(), catch_up_for_read(), refresh_traces(), save_rows(), db, sql."""

    def claim_pending(self, limit: int = 100, projecting: float | None = None) -> list[dict]:
        """Claim calls whose analysis is out of date, so one worker analyses each.

        New events are projected first: all of them, or what about `projecting` seconds of work
        projects (under a sustained load the queue never empties, and a claim that waited for it
        analysed nothing until the load stopped)."""
        if projecting is None:
            self.catch_up_for_read()
        else:
            self.project_for_claim(projecting)
        now = time.time()
        with self.write() as conn:
            rows = conn.execute(
                self.sql.CLAIM_PENDING, (now, now - CLAIM_SECONDS, limit)
            ).fetchall()
        return [{"trace_id": r[0], "call_id": r[1], "version": r[2]} for r in rows]

    def project_for_claim(self, seconds: float) -> None:
        """Project new events for about `seconds`; a lock or a full disk only delays it.

        The disk's floor is checked before each transaction, not once a turn: a turn begun just
        above it could fold seconds of events past it, a megabyte of payload a transaction."""
        try:
            self.project_all(seconds, before_each=self.keep_headroom)
        except StoreUnavailable:
            pass

    def release_claims_in(self, conn, keys) -> None:
        """Give claimed (trace_id, call_id) calls back to the queue.

        In the caller's transaction."""
        conn.executemany(RELEASE_CLAIM, [tuple(key) for key in keys])

    def pending_calls(self, trace_id: str) -> list[dict]:
        """List the calls of one trace whose analysis is out of date."""
        self.catch_up_for_read(READ_CATCH_UP_SECONDS)
        return list(
            self.db.query(
                "SELECT trace_id, call_id, version FROM calls "
                "WHERE trace_id = ? AND analyzed_version < version ORDER BY first_ts, call_id",
                (trace_id,),
            )
        )

    def save_analysis(self, trace_id, call_id, version, analysis: dict) -> bool:
        """Store an analysis unless the call changed meanwhile.

        Say whether it was stored."""
        return self.save_analyses([(trace_id, call_id, version, analysis)]) == 1

    def save_analyses(
        self, results, groupings: dict | None = None, rules=None, tell=None, also=None
    ) -> int:
        """Store (trace_id, call_id, version, analysis) results in one transaction.

        A result whose call changed since it was read is dropped (the call stays pending); return
        how many were stored. `groupings` ({(trace_id, call_id): ...}, see webapp/problems/)
        replaces each stored call's part in the problems, in the same transaction, by the problem
        rules `rules` (webapp/pipeline/rules.py); then `tell(conn, grouped)` decides, in the
        transaction too, what the changes tell (webapp/pipeline/telling.py: an hour's burst
        escalates, alerts are written). `also(conn)`, when given, writes more in the same
        transaction (the shapes learnt from these calls).
        """
        if not results:
            return 0
        with self.write() as conn:
            self.take_summaries_turn(conn)
            stored = self.save_rows(conn, [analysis_row(*result) for result in results])
            self.refresh_traces(conn, {result[0] for result in results})
            refresh_hours(
                conn, hour_keys(conn, [(r[0], r[1]) for r in results], self.sql), self.sql
            )
            if groupings:
                grouped = apply_groupings(conn, groupings, utc_now(), rules)
                if tell is not None:
                    tell(conn, grouped)
            if also is not None:
                also(conn)
        return stored

    def invalidate_tool(self, tool: str | None = None) -> int:
        """Mark the calls of a tool (or of every tool) for re-analysis."""
        sql = "UPDATE calls SET version = version + 1, claimed_at = NULL"
        with self.write() as conn:
            if tool is None:
                return conn.execute(sql).rowcount
            return conn.execute(sql + " WHERE tool = ?", (tool,)).rowcount
