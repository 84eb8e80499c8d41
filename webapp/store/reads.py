"""Reading traces, calls, snapshots and the list: the Store's read side."""

from ..common.stages import CORE, NAMES, missing
from .analyses import READ_CATCH_UP_SECONDS
from .codec import dumps, loads, utc_now
from .filters import TraceQuery
from .readthrough import calls_through_events

SNAPSHOTS = NAMES


class TraceReads:
    """Queries that return traces and calls as plain dicts (mixed into Store)."""

    def call_inputs(self, trace_id: str, call_id: str) -> dict | None:
        """Return the current snapshots and the tool of one call, for analysis."""
        return self.calls_inputs([(trace_id, call_id)]).get((trace_id, call_id))

    def calls_inputs(self, keys) -> dict:
        """Return {(trace_id, call_id): inputs} of many calls, in two queries."""
        conn = self.db.conn
        calls = conn.execute(
            self.sql.CALLS_BY_KEY, (dumps([list(key) for key in keys]),)
        ).fetchall()
        seqs = [seq for call in calls for seq in call[4:] if seq is not None]
        cursor = conn.execute(self.sql.EVENTS_BY_SEQ, (dumps(seqs),))
        names = [column[0] for column in cursor.description]
        events = {row[0]: _snapshot_dict(dict(zip(names, row))) for row in cursor}
        return {
            (trace_id, call_id): {
                "tool": tool,
                "version": version,
                "snapshots": {name: events.get(seq) for name, seq in zip(SNAPSHOTS, seqs)},
            }
            for trace_id, call_id, tool, version, *seqs in calls
        }

    def call_analysis(self, trace_id: str, call_id: str) -> dict | None:
        """Return the stored analysis of one call, else None.

        With the places of its folded findings."""
        row = self.db.execute(
            "SELECT analysis FROM calls WHERE trace_id = ? AND call_id = ?", (trace_id, call_id)
        ).fetchone()
        return loads(row[0]) if row and row[0] else None

    def pending_calls_of(self, trace_ids, limit: int = 100) -> list[dict]:
        """List out-of-date calls of some traces (at most `limit`).

        e.g. the rows a list page shows."""
        return list(
            self.db.query(
                "SELECT trace_id, call_id, version FROM calls WHERE trace_id "
                f"{self.sql.IN_JSON_LIST} "
                "AND analyzed_version < version LIMIT ?",
                (dumps(list(trace_ids)), limit),
            )
        )

    def get_trace(self, trace_id: str, catch_up: bool = True) -> dict | None:
        """Return a trace with its calls, current snapshots and stored analysis.

        Events the projection has not folded in yet are read through (readthrough.py): a trace is
        readable as soon as its ingest is acknowledged, however long the projection's queue. With
        `catch_up` False the read projects nothing first (its caller just did)."""
        if catch_up:
            self.catch_up_for_read(READ_CATCH_UP_SECONDS)
        # asked first: when it says no, the calls read next hold every event already
        behind = self.db.execute(self.sql.TRACE_UNPROJECTED, (trace_id,)).fetchone()[0]
        calls = list(
            self.db.query(
                "SELECT * FROM calls WHERE trace_id = ? ORDER BY first_ts, call_id", (trace_id,)
            )
        )
        if behind:
            calls = calls_through_events(self.db, trace_id, calls)
        if not calls:
            return None
        return {"trace_id": trace_id, "calls": [self._call(row) for row in calls]}

    def _call(self, row: dict) -> dict:
        analysis = loads(row["analysis"]) or {}
        lacking = missing({name for name in SNAPSHOTS if row[f"{name}_seq"] is not None})
        return {
            "call_id": row["call_id"],
            "tool": row["tool"],
            "source": row["source"],
            "release": row.get("release"),
            "status_code": row["status_code"],
            "first_ts": row["first_ts"],
            "last_ts": row["last_ts"],
            "snapshots": _present({name: self._snapshot(row[f"{name}_seq"]) for name in SNAPSHOTS}),
            "versions": self._version_counts(row["trace_id"], row["call_id"]),
            "analyzed": row["analyzed_version"] == row["version"],
            "validation": analysis.get("validation", {}),
            "findings": analysis.get("findings", []),
            "summary": analysis.get("summary", {"error": 0, "warning": 0, "info": 0}),
            "worst": analysis.get("worst"),
            # a stage never received: nothing to compare there, so the call is not clean
            "complete": not lacking,
            "missing": lacking,
            "alignment": analysis.get("alignment", []),
            "alignment_sparse": analysis.get("alignment_sparse", False),
            **({"incomplete": analysis["incomplete"]} if analysis.get("incomplete") else {}),
            **(
                {"request_template": analysis["request_template"]}
                if analysis.get("request_template")
                else {}
            ),
            **({"located": True} if analysis.get("located") else {}),
            **({"returned": analysis["returned"]} if analysis.get("returned") else {}),
        }

    def _snapshot(self, seq) -> dict | None:
        if seq is None:
            return None
        row = self._one("SELECT * FROM events WHERE seq = ?", (seq,))
        return _snapshot_dict(row)

    def _version_counts(self, trace_id, call_id) -> dict:
        rows = self.db.execute(
            "SELECT snapshot, count(*) FROM events WHERE trace_id = ? AND call_id = ? GROUP BY "
            "snapshot",
            (trace_id, call_id),
        ).fetchall()
        return dict(rows)

    def snapshot_versions(self, trace_id: str, call_id: str, snapshot: str) -> list[dict]:
        """Return every version of one snapshot, newest first."""
        rows = self.db.query(
            "SELECT * FROM events WHERE trace_id = ? AND call_id = ? AND snapshot = ? ORDER BY ts "
            "DESC, seq DESC",
            (trace_id, call_id, snapshot),
        )
        return [_snapshot_dict(row) for row in rows]

    def find_traces(
        self, query: TraceQuery, cursor: tuple | None = None
    ) -> tuple[list[dict], tuple | None]:
        """Return matching traces newest first after a cursor, and the next one.

        The cursor is (last_ts, trace_id)."""
        self.catch_up_for_read()
        sql, params = self.listing.trace_list_sql(query, cursor)
        rows = list(self.db.query(sql, params))
        next_cursor = None
        if len(rows) > query.limit:
            rows = rows[: query.limit]
            next_cursor = (rows[-1]["last_ts"], rows[-1]["trace_id"])
        return [_trace_summary(row) for row in rows], next_cursor

    def count_traces(self) -> int:
        return self.db.execute("SELECT count(*) FROM traces").fetchone()[0]

    def count_events(self) -> int:
        return self.db.execute("SELECT count(*) FROM events").fetchone()[0]

    def event_ids(self) -> set[str]:
        return {row[0] for row in self.db.execute("SELECT event_id FROM events")}

    def quarantine(self, limit: int = 100, before_id: int | None = None) -> list[dict]:
        """Return rejected records, newest first, older than `before_id` when given."""
        if before_id is None:
            return list(
                self.db.query("SELECT * FROM quarantine ORDER BY id DESC LIMIT ?", (limit,))
            )
        return list(
            self.db.query(
                "SELECT * FROM quarantine WHERE id < ? ORDER BY id DESC LIMIT ?", (before_id, limit)
            )
        )

    def quarantine_counts(self) -> dict:
        """Count rejected records in all and received in the last hour."""
        total, recent = self.db.execute(
            "SELECT count(*), count(*) FILTER (WHERE received_at >= ?) FROM quarantine",
            (utc_now(hours_ago=1),),
        ).fetchone()
        return {"total": total, "last_hour": recent}

    def _one(self, sql, params) -> dict | None:
        return next(iter(self.db.query(sql, params)), None)


def _snapshot_dict(row: dict) -> dict:
    return {
        "payload": loads(row["payload"]),
        "logged_as_string": bool(row["logged_as_string"]),
        "http": loads(row["http"]),
        "ts": row["ts"],
        "received_at": row["received_at"],
        "event_id": row["event_id"],
        "tool": row["tool"],
        "source": row["source"],
        "release": row.get("release"),
        "meta": loads(row["meta"]),
    }


def _trace_summary(row: dict) -> dict:
    lacking = missing({name for name in SNAPSHOTS if row.get(f"has_{name}")})
    return {
        "trace_id": row["trace_id"],
        "last_seen": row["last_ts"],
        "first_seen": row["first_ts"],
        "tools": _split(row["tools"]),
        "sources": _split(row["sources"]),
        "calls": row["calls"],
        "snapshots": _present({name: bool(row.get(f"has_{name}")) for name in SNAPSHOTS}),
        "complete": bool(row["complete"]),
        "missing": lacking,
        "worst": worst_shown(row["worst"], not lacking),
        "kinds": _split(row["kinds"]),
        # None where the row predates loud_kinds: the list then shows every kind as before
        "loud_kinds": None if row.get("loud_kinds") is None else _split(row["loud_kinds"]),
        "status_codes": [int(s) for s in _split(row["status_codes"])],
    }


def worst_shown(worst: str | None, complete: bool) -> str | None:
    """Return a trace's worst severity as shown.

    "incomplete" where "clean" would claim what a call lacks."""
    return "incomplete" if worst == "clean" and not complete else worst


def _split(text) -> list[str]:
    return [part for part in (text or "").split(",") if part]


def _present(snapshots: dict) -> dict:
    """Keep the core snapshots every call answers, and others only when present."""
    return {name: value for name, value in snapshots.items() if name in CORE or value}
