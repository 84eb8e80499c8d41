"""Migration 10 on PostgreSQL: every stored time in one fixed-width form, as SQLite's migration 10 does
(`2026-12-01T10:00:07.500000Z`, webapp/times.py): the fraction padded (or cut) to six digits, once, in the
rows not yet in that form. Hour keys (`call_hours.hour`, `problem_hours.hour`) are prefixes and stay."""

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
# Times inside a JSON column: a resolution's `since`, an archive's `at` (both compared with calls' times).
JSON_TIMES = (("problems", "resolve", "since"), ("problems", "archive", "at"))


def fixed(value: str) -> str:
    """SQL for a stored time in the fixed form: `YYYY-MM-DDTHH:MM:SS` + six fraction digits + `Z`."""
    fraction = f"CASE WHEN substr({value}, 20, 1) = '.' THEN substr({value}, 21, length({value}) - 21) ELSE '' END"
    return f"substr({value}, 1, 19) || '.' || rpad({fraction}, 6, '0') || 'Z'"


def needs(value: str) -> str:
    """SQL: the time is one the store wrote (seconds, then `Z` or a fraction) and is not in the fixed form."""
    return f"length({value}) <> 27 AND substr({value}, 20, 1) IN ('Z', '.') AND right({value}, 1) = 'Z'"


def migrate(conn) -> None:
    """Rewrite each table's times not in the fixed form, in one pass over the table."""
    for table, columns in COLUMNS.items():
        sets = ", ".join(f"{c} = CASE WHEN {needs(c)} THEN {fixed(c)} ELSE {c} END" for c in columns)
        conn.execute(f"UPDATE {table} SET {sets} WHERE " + " OR ".join(f"({needs(c)})" for c in columns))
    for table, column, key in JSON_TIMES:
        value = f"({column}::jsonb ->> '{key}')"
        conn.execute(f"UPDATE {table} SET {column} = jsonb_set({column}::jsonb, '{{{key}}}', to_jsonb({fixed(value)}))::text "
                     f"WHERE jsonb_typeof({column}::jsonb -> '{key}') = 'string' AND {needs(value)}")
