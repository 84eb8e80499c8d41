"""The database schema, created idempotently when a Store opens."""

# Columns added after a table was first shipped: (table, column, type), added when an old file lacks them.
ADDED_COLUMNS = (
    ("quarantine", "source", "TEXT"),  # quarantine visibility (issue 15)
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused, so the projection watermark is safe
    event_id TEXT NOT NULL UNIQUE,
    trace_id TEXT NOT NULL,
    call_id TEXT NOT NULL,
    snapshot TEXT NOT NULL,
    tool TEXT,
    source TEXT,
    payload TEXT NOT NULL,
    logged_as_string INTEGER NOT NULL DEFAULT 0,
    http TEXT,
    meta TEXT,
    ts TEXT NOT NULL,
    received_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_snapshot ON events (trace_id, call_id, snapshot, ts, seq);

-- How far background work has got through the event log (name 'projected').
CREATE TABLE IF NOT EXISTS progress (
    name TEXT PRIMARY KEY,
    seq INTEGER NOT NULL
);

-- Full-text index of payloads; contentless, its rowid is events.seq.
CREATE VIRTUAL TABLE IF NOT EXISTS events_fts USING fts5(body, content='', tokenize='unicode61');

CREATE TABLE IF NOT EXISTS calls (
    trace_id TEXT NOT NULL,
    call_id TEXT NOT NULL,
    tool TEXT,
    source TEXT,
    arguments_seq INTEGER,
    request_seq INTEGER,
    response_seq INTEGER,
    status_code INTEGER,
    first_ts TEXT,
    last_ts TEXT,
    version INTEGER NOT NULL DEFAULT 1,
    analyzed_version INTEGER NOT NULL DEFAULT 0,
    claimed_at REAL,
    analysis TEXT,
    worst TEXT,
    errors INTEGER NOT NULL DEFAULT 0,
    warnings INTEGER NOT NULL DEFAULT 0,
    infos INTEGER NOT NULL DEFAULT 0,
    kinds TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (trace_id, call_id)
);
CREATE INDEX IF NOT EXISTS calls_pending ON calls (version) WHERE analyzed_version < version;
CREATE INDEX IF NOT EXISTS calls_by_tool ON calls (tool);

CREATE TABLE IF NOT EXISTS traces (
    trace_id TEXT PRIMARY KEY,
    first_ts TEXT,
    last_ts TEXT NOT NULL,
    calls INTEGER NOT NULL,
    tools TEXT,
    sources TEXT,
    has_arguments INTEGER NOT NULL,
    has_request INTEGER NOT NULL,
    has_response INTEGER NOT NULL,
    complete INTEGER NOT NULL,
    worst TEXT,
    kinds TEXT,
    status_codes TEXT,
    errors INTEGER,
    warnings INTEGER
);
CREATE INDEX IF NOT EXISTS traces_by_time ON traces (last_ts, trace_id);

CREATE TABLE IF NOT EXISTS trace_kinds (
    trace_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    last_ts TEXT NOT NULL,
    PRIMARY KEY (trace_id, kind)
);
CREATE INDEX IF NOT EXISTS trace_kinds_by_time ON trace_kinds (kind, last_ts, trace_id);

CREATE TABLE IF NOT EXISTS trace_tools (
    trace_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    last_ts TEXT NOT NULL,
    PRIMARY KEY (trace_id, tool)
);
CREATE INDEX IF NOT EXISTS trace_tools_by_time ON trace_tools (tool, last_ts, trace_id);

-- Calls and calls with findings per tool and hour (the list's strip); see hours.py.
CREATE TABLE IF NOT EXISTS call_hours (
    hour TEXT NOT NULL,     -- '2026-11-30T09'
    tool TEXT NOT NULL,
    calls INTEGER NOT NULL,
    findings INTEGER NOT NULL,
    PRIMARY KEY (hour, tool)
);

CREATE TABLE IF NOT EXISTS tools (
    name TEXT PRIMARY KEY,
    contract TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS quarantine (
    id INTEGER PRIMARY KEY,
    received_at TEXT NOT NULL,
    code TEXT NOT NULL,
    message TEXT NOT NULL,
    raw TEXT,
    source TEXT  -- who sent it: the shipper's User-Agent, or the file `tracediff ingest` read
);

-- Alerts (issue 15): rules, the outbox written with what caused a message, the delivery log, and
-- when each rule last sent about each subject (a problem id, or "ingest"), for min_interval_s.
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

-- The trace list's filters and counts, newest first, at a million traces (webapp/store/listing.py).
-- The hourly strip reads calls by time from this index alone.
CREATE INDEX IF NOT EXISTS calls_by_time ON calls (last_ts, tool, worst);
-- Partial indexes for the values an incident filters by, which are usually rare, so a filter or a
-- count never walks every trace to find a few; their WHERE must match listing.py's conditions.
CREATE INDEX IF NOT EXISTS traces_worst_error ON traces (last_ts, trace_id) WHERE worst = 'error';
CREATE INDEX IF NOT EXISTS traces_worst_warning ON traces (last_ts, trace_id) WHERE worst = 'warning';
CREATE INDEX IF NOT EXISTS traces_worst_info ON traces (last_ts, trace_id) WHERE worst = 'info';
CREATE INDEX IF NOT EXISTS traces_status_3xx ON traces (last_ts, trace_id)
    WHERE (',' || status_codes || ',') LIKE '%,3__,%';
CREATE INDEX IF NOT EXISTS traces_status_4xx ON traces (last_ts, trace_id)
    WHERE (',' || status_codes || ',') LIKE '%,4__,%';
CREATE INDEX IF NOT EXISTS traces_status_5xx ON traces (last_ts, trace_id)
    WHERE (',' || status_codes || ',') LIKE '%,5__,%';
CREATE INDEX IF NOT EXISTS traces_missing_arguments ON traces (last_ts, trace_id) WHERE has_arguments = 0;
CREATE INDEX IF NOT EXISTS traces_missing_request ON traces (last_ts, trace_id) WHERE has_request = 0;
CREATE INDEX IF NOT EXISTS traces_missing_response ON traces (last_ts, trace_id) WHERE has_response = 0;
"""
