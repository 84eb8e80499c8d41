"""Migration 10: every stored time in one fixed-width form.

`2026-12-01T10:00:07.500000Z` (webapp/common/times.py).

Times were kept with their fraction as sent (`...07Z`, `...07.5Z`, `...07.07662Z`, OTLP's
nanoseconds) and compared as text, so within one second `07Z` sorted after `07.5Z`: lists,
since/until bounds, first and last seen, retention and cursors could be wrong inside a second. Each
time is rewritten once: the fraction padded (or cut) to six digits. Hour keys (`call_hours.hour`,
`problem_hours.hour`) are prefixes and stay. Only rows not yet in the fixed form are written, so the
migration costs what the old rows need.
"""

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
JSON_TIMES = (("problems", "resolve", "$.since"), ("problems", "archive", "$.at"))


def fixed(value: str) -> str:
    """SQL for a stored time in the fixed form.

    `YYYY-MM-DDTHH:MM:SS` + six fraction digits + `Z`."""
    fraction = (
        f"CASE WHEN substr({value}, 20, 1) = '.' THEN substr({value}, 21, length({value}) - 21) "
        "ELSE '' END"
    )
    return f"substr({value}, 1, 19) || '.' || substr({fraction} || '000000', 1, 6) || 'Z'"


def needs(value: str) -> str:
    """SQL: the time is one the store wrote and is not in the fixed form.

    Written by the store: seconds, then `Z` or a fraction."""
    return (
        f"length({value}) <> 27 AND substr({value}, 20, 1) IN ('Z', '.') AND substr({value}, -1) = "
        "'Z'"
    )


def migrate(conn) -> None:
    """Rewrite each table's times not in the fixed form, in one pass over the table."""
    for table, columns in COLUMNS.items():
        sets = ", ".join(
            f"{c} = CASE WHEN {needs(c)} THEN {fixed(c)} ELSE {c} END" for c in columns
        )
        conn.execute(
            f"UPDATE {table} SET {sets} WHERE " + " OR ".join(f"({needs(c)})" for c in columns)
        )
    for table, column, path in JSON_TIMES:
        value = f"json_extract({column}, '{path}')"
        conn.execute(
            f"UPDATE {table} SET {column} = json_set({column}, '{path}', {fixed(value)}) "
            f"WHERE json_valid({column}) AND json_type({column}, '{path}') = 'text' AND "
            f"{needs(value)}"
        )
