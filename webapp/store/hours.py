"""An hourly rollup of calls per tool, so the list's strip reads 168 rows.

Not every call of a week."""

from ..common import jsontext

# the rollup's name for calls whose events never named a tool
NO_TOOL = "(no tool)"

# The engine's forms of HOUR_KEYS and REFRESH_HOUR are in sqlite/sql.py and postgresql/sql.py.
BACKFILL = f"""INSERT OR REPLACE INTO call_hours (hour, tool, calls, findings)
 SELECT substr(last_ts, 1, 13), coalesce(tool, '{NO_TOOL}'), count(*), coalesce(sum(worst IN
   ('error', 'warning')), 0)
 FROM calls WHERE last_ts IS NOT NULL GROUP BY 1, 2"""


def hour_keys(conn, calls, sql) -> set[tuple[str, str]]:
    """Return the (hour, tool) cells that these (trace_id, call_id) calls sit in now.

    `sql` is the engine's statements module (sqlite/sql.py or postgresql/sql.py)."""
    keys = jsontext.dumps([list(call) for call in calls]).decode()
    return {tuple(row) for row in conn.execute(sql.HOUR_KEYS, (keys,)) if row[0]}


def refresh_hours(conn, keys, sql) -> None:
    """Recount the given (hour, tool) cells from the calls table (an index range each)."""
    for hour, tool in keys:
        conn.execute(sql.REFRESH_HOUR, (hour, tool))
    conn.execute("DELETE FROM call_hours WHERE calls = 0")


def backfill_hours(conn) -> None:
    """Fill the rollup of a database made before it existed (once, at start)."""
    empty = conn.execute("SELECT NOT EXISTS (SELECT 1 FROM call_hours)").fetchone()[0]
    if empty and conn.execute("SELECT EXISTS (SELECT 1 FROM calls)").fetchone()[0]:
        conn.execute(BACKFILL)
