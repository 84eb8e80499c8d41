"""The PostgreSQL engine's named statements.

sqlite/sql.py has the same names; tests/test_store_engines.py.

Lists of keys travel as one JSON parameter, as in SQLite: `json_array_elements(?::json)`.
"""

from .. import stagecols
from ..hours import NO_TOOL

# Run only by this engine's own code (the rest have a namesake in sqlite/sql.py).
ONLY_HERE = (
    "EVENT_COLUMNS",
    "INSERT_EVENTS",
    "TAKE_QUEUED",
    "WORD_QUEUED",
    "REFRESH_TRACES",
    "REFRESH_TRACE_INDEXES",
    "SUMMARIES_LOCK",
    "MIGRATIONS_LOCK",
    "INDEXED_CHARS",
    "WORDS",
    "PHRASE",
    "KEYS",
)
# One projector and one writer of the trace summaries at a time, across every node
# (pg_advisory_xact_lock).
SUMMARIES_LOCK = 7_244_183_100_001
MIGRATIONS_LOCK = 7_244_183_100_002

EVENT_COLUMNS = (
    "event_id, trace_id, call_id, snapshot, tool, source, release, payload, logged_as_string, "
    "http, "
    "meta, ts, received_at"
)
TAKE_QUEUED = """DELETE FROM projection_queue WHERE seq IN
 (SELECT seq FROM projection_queue ORDER BY seq LIMIT ? FOR UPDATE SKIP LOCKED) RETURNING seq"""
# The same words as SQLite's FTS5 unicode61 finds: runs of letters and digits, any case, without
# accents (`muller` finds `Müller`: unicode61 removes diacritics; unaccent, migration 9, does it
# here). A tsvector holds at most 1 MB and counts word positions only to 16,383, so the words of a
# payload's first INDEXED_CHARS characters are indexed (under 0.6 MB of tsvector whatever the text):
# a bigger payload would fail its batch's projection again and again.
INDEXED_CHARS = 100_000
WORDS = (
    f"to_tsvector('simple', regexp_replace(unaccent(left({{0}}, {INDEXED_CHARS})), "
    "'[^[:alnum:]]+', ' ', 'g'))"
)
# A batch in one statement: new events go to the log and to the projection queue in the same
# transaction; duplicates (the same event_id) are skipped; the answer counts what was added per
# source.
INSERT_EVENTS = f"""WITH r AS (SELECT * FROM json_to_recordset(?::json) AS x(event_id text,
  trace_id text,
  call_id text, snapshot text, tool text, source text, release text, payload text, logged_as_string
    int,
  http text, meta text, ts text, received_at text, n int)),
 added AS (INSERT INTO events ({EVENT_COLUMNS}) SELECT {EVENT_COLUMNS} FROM r ORDER BY n
  ON CONFLICT (event_id) DO NOTHING RETURNING seq, source),
 queued AS (INSERT INTO projection_queue (seq) SELECT seq FROM added)
 SELECT coalesce(source, ''), count(*) FROM added GROUP BY 1"""
# The queued events' words (see WORDS), made before the projection takes the one lock of trace
# summaries all nodes share, each node its own share (SKIP LOCKED): they were 86% of the
# projection's time under that lock (issue 36: two nodes projected ~400 events/s while taking
# 1,000); made in the acknowledging insert instead, they cut one node's burst to a third. One
# statement, its own transaction, that also says whether anything is queued: on an empty queue (the
# last step of every catch-up) the projection's lock transaction is not opened at all.
WORD_QUEUED = f"""WITH worded AS (UPDATE events SET words = {WORDS.format("payload")} WHERE seq IN
 (SELECT e.seq FROM projection_queue q JOIN events e ON e.seq = q.seq WHERE e.words IS NULL
  ORDER BY q.seq LIMIT ? FOR UPDATE OF e SKIP LOCKED))
 SELECT EXISTS (SELECT 1 FROM projection_queue)"""
# The queued events' calls; the words of those still without (queued since, or another node's
# share in flight) are made here.
INDEX_EVENTS = f"""WITH indexed AS (UPDATE events SET words = {WORDS.format("payload")}
  WHERE seq = ANY(?) AND words IS NULL)
 SELECT seq, trace_id, call_id FROM events WHERE seq = ANY(?)"""
PHRASE = "phraseto_tsquery('simple', regexp_replace(unaccent(?), '[^[:alnum:]]+', ' ', 'g'))"
KEYS = "json_array_elements(?::json) AS k(value)"
CALLS_BY_KEY = f"""SELECT c.trace_id, c.call_id, c.tool, c.version, {stagecols.seqs("c.")}
 FROM {KEYS} JOIN calls AS c ON c.trace_id = k.value->>0 AND c.call_id = k.value->>1"""
EVENTS_BY_SEQ = f"""SELECT seq, {EVENT_COLUMNS} FROM events
 WHERE seq IN (SELECT json_array_elements_text(?::json)::bigint)"""
OLDEST_PENDING = f"""SELECT count(*), min(greatest({stagecols.each_present("coalesce({0}, 0)")}))
 FROM calls WHERE analyzed_version < version"""
IN_JSON_LIST = "IN (SELECT json_array_elements_text(?::json))"
IN_JSON_NUMBERS = "IN (SELECT json_array_elements_text(?::json)::bigint)"
KEYED_CALLS = f"{KEYS} JOIN calls AS c ON c.trace_id = k.value->>0 AND c.call_id = k.value->>1"
# whether events of a trace wait in the projection's queue (read through meanwhile: readthrough.py)
TRACE_UNPROJECTED = """SELECT EXISTS (SELECT 1 FROM events e
 JOIN projection_queue q ON q.seq = e.seq WHERE e.trace_id = ?)"""
# whether events of a tool wait in the projection's queue (a tool known by them: toolcalls.py)
TOOL_UNPROJECTED = """SELECT EXISTS (SELECT 1 FROM projection_queue q
 JOIN events e ON e.seq = q.seq WHERE e.tool = ?)"""
SET_PROGRESS = (
    "INSERT INTO progress (name, seq) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET seq = "
    "excluded.seq"
)
_TOUCHED = (
    "SELECT DISTINCT value->>0 AS trace_id, value->>1 AS call_id FROM "
    "json_array_elements(:calls::json) AS k(value)"
)
_CURRENT = """(SELECT seq FROM events WHERE trace_id = t.trace_id AND call_id = t.call_id AND
  snapshot = '{0}'
   ORDER BY ts DESC, seq DESC LIMIT 1)"""
_LATEST = """(SELECT {0} FROM events WHERE trace_id = t.trace_id AND call_id = t.call_id AND {0} IS
  NOT NULL
   ORDER BY seq DESC LIMIT 1)"""
PROJECT_CALLS = f"""INSERT INTO calls AS c (trace_id, call_id, tool, source, release,
  {stagecols.seqs()},
 status_code, first_ts, last_ts)
 SELECT t.trace_id, t.call_id, {_LATEST.format("tool")}, {_LATEST.format("source")},
   {_LATEST.format("release")},
  {stagecols.currents(_CURRENT)},
  coalesce((SELECT (http::json->>'status_code')::int FROM events WHERE trace_id = t.trace_id AND
    call_id = t.call_id
    AND snapshot = 'response' ORDER BY ts DESC, seq DESC LIMIT 1),
   (SELECT (http::json->>'status_code')::int FROM events WHERE trace_id = t.trace_id AND call_id =
    t.call_id AND snapshot = 'request' AND http::json->>'status_code' IS NOT NULL
    ORDER BY ts DESC, seq DESC LIMIT 1)),
  (SELECT min(ts) FROM events WHERE trace_id = t.trace_id AND call_id = t.call_id),
  (SELECT max(ts) FROM events WHERE trace_id = t.trace_id AND call_id = t.call_id)
 FROM ({_TOUCHED}) AS t
 WHERE EXISTS (SELECT 1 FROM events WHERE trace_id = t.trace_id AND call_id = t.call_id)
 ON CONFLICT (trace_id, call_id) DO UPDATE SET tool = excluded.tool, source = excluded.source,
 release = excluded.release, status_code = excluded.status_code, first_ts = excluded.first_ts,
 last_ts = excluded.last_ts,
 version = c.version + ({stagecols.changed("c", "IS DISTINCT FROM")})::int,
 {stagecols.set_excluded()}"""
DROP_EMPTY_CALLS = f"""DELETE FROM calls WHERE (trace_id, call_id) IN (SELECT trace_id, call_id
  FROM ({_TOUCHED}) AS t
 WHERE NOT EXISTS (SELECT 1 FROM events WHERE trace_id = t.trace_id AND call_id = t.call_id))"""
# Trace summaries are refreshed for a whole batch of trace ids (an array) at once: one statement
# each, not one round trip per trace.
_DISTINCT_LIST = """(SELECT string_agg(DISTINCT x, ',' ORDER BY x)
   FROM unnest(string_to_array(string_agg(nullif({0}, ''), ','), ',')) AS x)"""
REFRESH_TRACES = f"""INSERT INTO traces (trace_id, first_ts, last_ts, calls, tools, sources,
 {", ".join(stagecols.HAS)}, complete, worst, kinds, status_codes, errors, warnings, loud_kinds)
 SELECT trace_id, min(first_ts), max(last_ts), count(*),
  string_agg(DISTINCT tool, ',' ORDER BY tool), string_agg(DISTINCT source, ',' ORDER BY source),
  {stagecols.each_present("bool_and({0} IS NOT NULL)::int")},
  bool_and({stagecols.COMPLETE})::int,
  CASE max(CASE worst WHEN 'error' THEN 3 WHEN 'warning' THEN 2 WHEN 'info' THEN 1 ELSE 0 END)
   WHEN 3 THEN 'error' WHEN 2 THEN 'warning' WHEN 1 THEN 'info' ELSE
   CASE WHEN bool_or(analysis IS NOT NULL) THEN 'clean' END END,
  {_DISTINCT_LIST.format("kinds")},
  string_agg(DISTINCT status_code::text, ',' ORDER BY status_code::text),
  sum(errors), sum(warnings), coalesce({_DISTINCT_LIST.format("loud_kinds")}, '')
 FROM calls WHERE trace_id = ANY(?) GROUP BY trace_id
 ON CONFLICT (trace_id) DO UPDATE SET first_ts = excluded.first_ts, last_ts = excluded.last_ts,
 calls = excluded.calls, tools = excluded.tools, sources = excluded.sources,
 {stagecols.set_excluded(stagecols.HAS)}, complete = excluded.complete,
 worst = excluded.worst, kinds = excluded.kinds, status_codes = excluded.status_codes, errors =
   excluded.errors,
 warnings = excluded.warnings, loud_kinds = excluded.loud_kinds"""
DELETE_TRACE_KINDS = "DELETE FROM trace_kinds WHERE trace_id = ?"
DELETE_TRACE_TOOLS = "DELETE FROM trace_tools WHERE trace_id = ?"
REFRESH_TRACE_INDEXES = (
    "DELETE FROM trace_kinds WHERE trace_id = ANY(?)",
    """INSERT INTO trace_kinds (trace_id, kind, last_ts)
 SELECT DISTINCT trace_id, x, last_ts FROM traces, unnest(string_to_array(nullif(kinds, ''), ','))
   AS x
 WHERE trace_id = ANY(?)""",
    "DELETE FROM trace_tools WHERE trace_id = ANY(?)",
    """INSERT INTO trace_tools (trace_id, tool, last_ts)
 SELECT DISTINCT c.trace_id, c.tool, t.last_ts FROM calls c JOIN traces t ON t.trace_id = c.trace_id
 WHERE c.trace_id = ANY(?) AND c.tool IS NOT NULL""",
)
# Claims skip rows another node holds locked, so no call is claimed twice however many analysers
# run. oldest first (calls_pending_by_time): a tool's observed shapes learn its calls in the order
# they were made
CLAIM_PENDING = """UPDATE calls SET claimed_at = ?1 WHERE (trace_id, call_id) IN (
 SELECT trace_id, call_id FROM calls WHERE analyzed_version < version AND (claimed_at IS NULL OR
   claimed_at < ?2)
 ORDER BY first_ts LIMIT ?3 FOR UPDATE SKIP LOCKED) RETURNING trace_id, call_id, version"""
HOUR_KEYS = f"""SELECT DISTINCT substr(c.last_ts, 1, 13), coalesce(c.tool, '{NO_TOOL}')
 FROM {KEYS} JOIN calls AS c ON c.trace_id = k.value->>0 AND c.call_id = k.value->>1"""
REFRESH_HOUR = f"""INSERT INTO call_hours (hour, tool, calls, findings)
 SELECT ?1, ?2, count(*), count(*) FILTER (WHERE worst IN ('error', 'warning')) FROM calls
 WHERE last_ts >= ?1 AND last_ts < ?1 || ';' AND coalesce(tool, '{NO_TOOL}') = ?2
 ON CONFLICT (hour, tool) DO UPDATE SET calls = excluded.calls, findings = excluded.findings"""
SPAN_EVENTS = """SELECT seq, trace_id, call_id, tool, meta::json->>'span_id',
  meta::json->>'parent_span_id', ts,
 meta::json->>'turn_span_id', meta::json->>'turn_position', meta::json->>'call_index',
   meta::json->>'turn_calls'
 FROM events WHERE seq = ANY(?) AND meta::json->>'span_id' IS NOT NULL"""
ADOPT_CHILDREN = """UPDATE events SET call_id = ?, tool = coalesce(tool, ?)
 WHERE trace_id = ? AND call_id = '' AND meta::json->>'parent_span_id' = ? AND ts >= ? AND ts <=
   ?"""
FIND_PARENT = """SELECT call_id, tool FROM events WHERE trace_id = ? AND call_id != ''
 AND meta::json->>'span_id' = ? AND ts >= ? AND ts <= ? LIMIT 1"""
FIND_TURN = """SELECT call_id, tool, meta::json->>'span_id', meta::json->>'call_index' FROM events
 WHERE trace_id = ? AND snapshot = 'arguments' AND call_id != '' AND meta::json->>'parent_span_id'
   = ?
 AND meta::json->>'call_index' IS NOT NULL AND ts >= ? AND ts <= ? ORDER BY ts DESC, seq DESC LIMIT
   256"""
FIND_ANNOUNCED = """SELECT call_id, tool, meta::json->>'call_index', meta::json->>'turn_calls'
 FROM events WHERE trace_id = ? AND snapshot = 'arguments' AND call_id != '' AND
   meta::json->>'span_id' = ?
 AND meta::json->>'call_index' IS NOT NULL"""
TURN_ORPHANS = """SELECT seq, meta::json->>'turn_position' FROM events
 WHERE trace_id = ? AND call_id = '' AND meta::json->>'turn_span_id' = ?"""
# the HTTP spans under one parent already joined to a call of a turn (spans.turn_call orders them)
TURN_SPANS = """SELECT seq, meta::json->>'span_id', ts FROM events WHERE trace_id = ? AND call_id =
  ?
 AND snapshot IN ('request', 'response') AND meta::json->>'parent_span_id' = ?"""
DELETE_TRACE = (
    DELETE_TRACE_TOOLS,
    "DELETE FROM calls WHERE trace_id = ?",
    DELETE_TRACE_KINDS,
    "DELETE FROM traces WHERE trace_id = ?",
)
REBUILD_PAIRS = """INSERT INTO problem_pairs (problem_id, pair, count)
 SELECT ?1, p.key, sum(p.value::int) FROM problem_calls, json_each_text(pairs::json) AS p(key,
   value)
 WHERE problem_id = ?1 GROUP BY 2"""
