"""Migration 11 (issue 15).

Alert rule ids are never reused (AUTOINCREMENT: a plain INTEGER PRIMARY KEY hands a deleted rule's
id to the next rule, which then inherited its log and messages); when a rule's failures began, so it
pauses after an hour of them, not after 5 attempts; each delivery attempt's own outcome.

A .py rather than SQL: a database whose record of migrations was lost runs it again, and then the
attempt state column is there already.
"""

REBUILD = """
CREATE TABLE alert_rules_11 (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    url TEXT NOT NULL,
    format TEXT NOT NULL,
    on_events TEXT NOT NULL,
    tool TEXT,
    kind TEXT,
    min_severity TEXT,
    source TEXT,
    min_interval_s INTEGER NOT NULL,
    secret TEXT NOT NULL,
    created_at TEXT NOT NULL,
    paused_at TEXT,
    pause_reason TEXT,
    failures INTEGER NOT NULL DEFAULT 0,
    failing_since TEXT
);
INSERT INTO alert_rules_11 (id, url, format, on_events, tool, kind, min_severity, source,
  min_interval_s, secret,
                            created_at, paused_at, pause_reason, failures)
    SELECT id, url, format, on_events, tool, kind, min_severity, source, min_interval_s, secret,
      created_at,
           paused_at, pause_reason, failures FROM alert_rules;
DROP TABLE alert_rules;
ALTER TABLE alert_rules_11 RENAME TO alert_rules;
-- Ids of rules deleted before this migration are not handed out again either.
DELETE FROM sqlite_sequence WHERE name IN ('alert_rules', 'alert_rules_11');
INSERT INTO sqlite_sequence (name, seq) SELECT 'alert_rules', max(coalesce(m, 0)) FROM (
    SELECT max(id) AS m FROM alert_rules UNION ALL SELECT max(rule_id) FROM alert_outbox
    UNION ALL SELECT max(rule_id) FROM alert_deliveries UNION ALL SELECT max(rule_id) FROM
      alert_sent);
-- Messages older than their rule belong to a deleted rule whose id was reused: they go, with their log.
DELETE FROM alert_outbox WHERE NOT EXISTS (SELECT 1 FROM alert_rules r WHERE r.id =
  alert_outbox.rule_id
                                           AND r.created_at <= alert_outbox.created_at);
DELETE FROM alert_deliveries WHERE NOT EXISTS (SELECT 1 FROM alert_outbox o WHERE o.id =
  alert_deliveries.message_id);
DELETE FROM alert_sent WHERE NOT EXISTS (SELECT 1 FROM alert_rules r WHERE r.id = alert_sent.rule_id
                                         AND r.created_at <= alert_sent.at);
"""


def migrate(conn) -> None:
    """Rebuild the rules table with AUTOINCREMENT.

    Drop what belonged to reused ids, record attempt states."""
    for statement in REBUILD.split(";\n"):
        if statement.strip():
            conn.execute(statement)
    if "state" not in {row[1] for row in conn.execute("PRAGMA table_info(alert_deliveries)")}:
        conn.execute("ALTER TABLE alert_deliveries ADD COLUMN state TEXT")
    conn.execute(
        "UPDATE alert_deliveries SET state = CASE WHEN status_code BETWEEN 200 AND 299 THEN "
        "'delivered'"
        " ELSE 'failed' END WHERE state IS NULL"
    )
