-- Migration 1: the schema of tracediff 0.1.0, frozen. Idempotent (IF NOT EXISTS), so a database made
-- before numbered migrations existed upgrades in place: nothing is dropped or rebuilt.
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
    raw TEXT
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
