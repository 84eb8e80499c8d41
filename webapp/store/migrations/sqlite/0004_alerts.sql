-- Alerts (issue 15): rules, the outbox written in the transaction that causes a message, the delivery
-- log, and when each rule last sent about each subject (a problem id, or "ingest"), for min_interval_s.
CREATE TABLE IF NOT EXISTS alert_rules (
    id INTEGER PRIMARY KEY,
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
    failures INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS alert_outbox (
    id TEXT PRIMARY KEY,
    rule_id INTEGER NOT NULL,
    type TEXT NOT NULL,
    subject TEXT NOT NULL,
    data TEXT NOT NULL,
    created_at TEXT NOT NULL,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    next_attempt_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS alert_outbox_due ON alert_outbox (state, next_attempt_at);
CREATE TABLE IF NOT EXISTS alert_deliveries (
    id INTEGER PRIMARY KEY,
    message_id TEXT NOT NULL,
    rule_id INTEGER NOT NULL,
    at TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    status_code INTEGER,
    latency_ms REAL,
    error TEXT
);
CREATE INDEX IF NOT EXISTS alert_deliveries_by_rule ON alert_deliveries (rule_id, id);
CREATE TABLE IF NOT EXISTS alert_sent (
    rule_id INTEGER NOT NULL,
    subject TEXT NOT NULL,
    at TEXT NOT NULL,
    PRIMARY KEY (rule_id, subject)
);
