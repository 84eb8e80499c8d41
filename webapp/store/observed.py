"""Observed shapes, a mixin of Store.

Each tool's learnt shape per stage, and what each call was learnt from.

The learning itself is webapp/observed/ (pure); the pipeline hands the rows to write inside the
analyser's transaction.
"""

from .codec import dumps, loads, utc_now

UPSERT_SHAPE = """INSERT INTO observed_shapes (tool, stage, shape, updated_at) VALUES (?, ?, ?, ?)
 ON CONFLICT (tool, stage) DO UPDATE SET shape = excluded.shape, updated_at = excluded.updated_at"""


class ObservedShapes:
    """Mixin of Store (needs db, sql, write(), take_turn())."""

    def observed_shapes(self, tool: str) -> dict:
        """Return {stage: shape} of a tool ({} before any call was learnt from)."""
        rows = self.db.execute("SELECT stage, shape FROM observed_shapes WHERE tool = ?", (tool,))
        return {stage: loads(shape) for stage, shape in rows}

    def observed_shape_in(self, conn, tool: str, stage: str) -> dict | None:
        """Read one shape inside a write transaction.

        As the one writer of it until the transaction ends."""
        self.take_turn(conn, f"observed:{tool}:{stage}")
        row = conn.execute(
            "SELECT shape FROM observed_shapes WHERE tool = ? AND stage = ?", (tool, stage)
        ).fetchone()
        return loads(row[0]) if row else None

    def put_observed_shape(self, conn, tool: str, stage: str, shape: dict) -> None:
        """Write one shape inside a write transaction."""
        conn.execute(UPSERT_SHAPE, (tool, stage, dumps(shape), utc_now()))

    def observed_of(self, keys, conn=None) -> dict:
        """Return {(trace_id, call_id): {"seen", "findings"} or None} of calls.

        What each was learnt from (inside a write transaction when `conn` is given: what another
        analyser committed meanwhile counts)."""
        if not keys:
            return {}
        rows = (conn or self.db).execute(
            f"SELECT c.trace_id, c.call_id, c.drift FROM {self.sql.KEYED_CALLS}",
            (dumps([list(k) for k in keys]),),
        )
        return {
            (trace_id, call_id): loads(drift) if drift else None
            for trace_id, call_id, drift in rows
        }

    def set_observed_in(self, conn, records: dict) -> None:
        """Record inside a write transaction what calls were learnt from.

        As {(trace_id, call_id): record}."""
        conn.executemany(
            "UPDATE calls SET drift = ? WHERE trace_id = ? AND call_id = ?",
            [(dumps(record), trace_id, call_id) for (trace_id, call_id), record in records.items()],
        )

    def forget_observed(self, tool: str | None = None) -> None:
        """Forget learnt shapes and what calls they were learnt from.

        Of one tool, or all, to learn them again."""
        with self.write() as conn:
            if tool is None:
                conn.execute("DELETE FROM observed_shapes")
                conn.execute("UPDATE calls SET drift = NULL WHERE drift IS NOT NULL")
            else:
                conn.execute("DELETE FROM observed_shapes WHERE tool = ?", (tool,))
                conn.execute(
                    "UPDATE calls SET drift = NULL WHERE tool = ? AND drift IS NOT NULL", (tool,)
                )
