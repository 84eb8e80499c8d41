"""Clean calls of a tool.

The candidates for the nearest clean call and the last clean call before a problem (the layers
above prefer those that exercised what broke: webapp/problems/exercised.py); and small facts of
one call."""

from ..common.stages import CORE
from .codec import dumps, loads

# a call missing a stage compared nothing there: never a clean call
COMPLETE = " AND ".join(f"{name}_seq IS NOT NULL" for name in CORE)


class CleanCalls:
    """Reads of clean calls and of one call's facts.

    Mixed into Store through ProblemReads."""

    def clean_calls(
        self, tool: str, limit: int = 300, digest: str | None = None, before: str | None = None
    ) -> list[dict]:
        """Return a tool's recent clean calls, newest first, for the nearest one.

        Clean: every core stage, no warning or error. Each with its arguments and response status;
        `before`: only calls before that time."""
        sql = (
            "SELECT trace_id, call_id, last_ts, contract_digest, arguments_seq, status_code, "
            "release FROM calls "
            "WHERE tool = ? AND analysis IS NOT NULL AND coalesce(worst, '') NOT IN ('error', "
            "'warning') "
            f"AND {COMPLETE}"
        )
        params: list = [tool]
        if digest:
            sql += " AND contract_digest = ?"
            params.append(digest)
        if before:
            sql += " AND last_ts < ?"
            params.append(before)
        rows = list(self.db.query(sql + " ORDER BY last_ts DESC LIMIT ?", [*params, limit]))
        payloads = dict(
            self.db.execute(
                f"SELECT seq, payload FROM events WHERE seq {self.sql.IN_JSON_NUMBERS}",
                (dumps([r["arguments_seq"] for r in rows if r["arguments_seq"]]),),
            )
        )
        return [{**row, "arguments": loads(payloads.get(row["arguments_seq"]))} for row in rows]

    def call_broke(self, trace_id: str, call_id: str) -> bool:
        """Say whether a call's stored analysis has a warning or error.

        A finding that opens a problem."""
        row = self.db.execute(
            "SELECT worst FROM calls WHERE trace_id = ? AND call_id = ?", (trace_id, call_id)
        ).fetchone()
        return bool(row) and row[0] in ("error", "warning")

    def call_status(self, trace_id: str, call_id: str) -> int | None:
        """Return the HTTP status of a call's response (None when it has none)."""
        row = self.db.execute(
            "SELECT status_code FROM calls WHERE trace_id = ? AND call_id = ?", (trace_id, call_id)
        ).fetchone()
        return row[0] if row else None

    def call_digest(self, trace_id: str, call_id: str) -> str | None:
        """Return the digest of the contract a call's stored analysis used."""
        row = self.db.execute(
            "SELECT contract_digest FROM calls WHERE trace_id = ? AND call_id = ?",
            (trace_id, call_id),
        ).fetchone()
        return row[0] if row else None
