"""Migration 10 on PostgreSQL.

Every stored time in one fixed-width form, as SQLite's migration 10 does
(`2026-12-01T10:00:07.500000Z`, webapp/common/times.py): the fraction padded (or cut) to six digits,
once. Hour keys (`call_hours.hour`, `problem_hours.hour`) are prefixes and stay.

A table with a time to rewrite is rewritten whole by `ALTER COLUMN ... TYPE text USING`, not by
UPDATE: an UPDATE of every event writes a new row version and a new entry in every index (the search
words' GIN index included, ~4x the time on 300k events) and leaves the table half dead rows until a
VACUUM; the rewrite builds the table and its indexes afresh. Each rewritten table is analysed again
(a rewrite drops the column's statistics)."""

# Every column holding a time the store writes; nullable ones too (NULL stays NULL).
COLUMNS = {
    "events": ("ts", "received_at"),
    "calls": ("first_ts", "last_ts"),
    "traces": ("first_ts", "last_ts"),
    "trace_kinds": ("last_ts",),
    "trace_tools": ("last_ts",),
    "tools": ("updated_at",),
    "quarantine": ("received_at",),
    "alert_rules": ("created_at", "paused_at"),
    "alert_outbox": ("created_at", "next_attempt_at"),
    "alert_deliveries": ("at",),
    "alert_sent": ("at",),
    "mapping_rejections": ("rejected_at",),
    "tool_inference": ("updated_at",),
    "problems": ("first_seen", "last_seen", "resolved_at", "created_at"),
    "problem_calls": ("ts",),
    "problem_checks": ("ts",),
    "problem_states": ("at",),
    "schema_migrations": ("applied_at",),
}
# Times inside a JSON column: a resolution's `since`, an archive's `at` (both compared with calls'
# times).
JSON_TIMES = (("problems", "resolve", "since"), ("problems", "archive", "at"))


def fixed(value: str) -> str:
    """SQL for a stored time in the fixed form.

    `YYYY-MM-DDTHH:MM:SS` + six fraction digits + `Z`."""
    fraction = (
        f"CASE WHEN substr({value}, 20, 1) = '.' THEN substr({value}, 21, length({value}) - 21) "
        "ELSE '' END"
    )
    return f"substr({value}, 1, 19) || '.' || rpad({fraction}, 6, '0') || 'Z'"


def needs(value: str) -> str:
    """SQL: the time is one the store wrote and is not in the fixed form.

    Written by the store: seconds, then `Z` or a fraction."""
    return (
        f"length({value}) <> 27 AND substr({value}, 20, 1) IN ('Z', '.') AND right({value}, 1) = "
        "'Z'"
    )


COLLATION = """SELECT attname, CASE WHEN attcollation = 0 OR attcollation = 100 THEN '' ELSE
 ' COLLATE ' || attcollation::regcollation::text END FROM pg_attribute WHERE attrelid = ?::regclass
   AND attnum > 0"""


def migrate(conn) -> None:
    """Rewrite each table holding a time not in the fixed form.

    Keeping each column's collation."""
    # the index builds sort in memory
    conn.execute("SET LOCAL maintenance_work_mem = '256MB'")
    for table, columns in COLUMNS.items():
        if not conn.execute(
            f"SELECT EXISTS (SELECT 1 FROM {table} WHERE "
            + " OR ".join(f"({needs(c)})" for c in columns)
            + ")"
        ).fetchone()[0]:
            continue
        collations = dict(conn.execute(COLLATION, (table,)).fetchall())
        changes = ", ".join(
            f"ALTER COLUMN {c} TYPE text{collations[c]} USING CASE WHEN {needs(c)} THEN {fixed(c)} "
            f"ELSE {c} END"
            for c in columns
        )
        conn.execute(f"ALTER TABLE {table} {changes}")
        conn.execute(f"ANALYZE {table}")
    for table, column, key in JSON_TIMES:
        value = f"({column}::jsonb ->> '{key}')"
        conn.execute(
            f"UPDATE {table} SET {column} = jsonb_set({column}::jsonb, '{{{key}}}', "
            f"to_jsonb({fixed(value)}))::text "
            f"WHERE jsonb_typeof({column}::jsonb -> '{key}') = 'string' AND {needs(value)}"
        )
