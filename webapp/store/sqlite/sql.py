"""The SQLite engine's named statements.

The shared store code reads them as `self.sql.NAME`.

postgresql/sql.py has the same names (tests/test_store_engines.py checks it); ONLY_HERE names the
statements only this engine's own code runs.
"""

from .. import stagecols
from ..hours import NO_TOOL

# Run only by this engine's own code (the rest have a namesake in postgresql/sql.py).
ONLY_HERE = (
    "INSERT_EVENT",
    "NEW_EVENTS",
    "REFRESH_TRACE",
    "INSERT_TRACE_KINDS",
    "INSERT_TRACE_TOOLS",
    "INDEXED_TEXT",
    "UNINDEX",
)
HOUR_KEYS = f"""SELECT DISTINCT substr(c.last_ts, 1, 13), coalesce(c.tool, '{NO_TOOL}')
 FROM json_each(?) AS k JOIN calls AS c
 ON c.trace_id = json_extract(k.value, '$[0]') AND c.call_id = json_extract(k.value, '$[1]')"""
REFRESH_HOUR = f"""INSERT OR REPLACE INTO call_hours (hour, tool, calls, findings)
 SELECT ?1, ?2, count(*), coalesce(sum(worst IN ('error', 'warning')), 0) FROM calls
 WHERE last_ts >= ?1 AND last_ts < ?1 || ';' AND coalesce(tool, '{NO_TOOL}') = ?2"""
# The span events of a projected range (spans.py joins call-less ones to their call).
SPAN_EVENTS = """SELECT seq, trace_id, call_id, tool, json_extract(meta, '$.span_id'),
 json_extract(meta, '$.parent_span_id'), ts, json_extract(meta, '$.turn_span_id'),
 json_extract(meta, '$.turn_position'),
 json_extract(meta, '$.call_index'), json_extract(meta, '$.turn_calls') FROM events
 WHERE seq > ? AND seq <= ? AND json_extract(meta, '$.span_id') IS NOT NULL"""
ADOPT_CHILDREN = """UPDATE events SET call_id = ?, tool = coalesce(tool, ?)
 WHERE trace_id = ? AND call_id = '' AND json_extract(meta, '$.parent_span_id') = ? AND ts >= ? AND
   ts <= ?"""
FIND_PARENT = """SELECT call_id, tool FROM events WHERE trace_id = ? AND call_id != ''
 AND json_extract(meta, '$.span_id') = ? AND ts >= ? AND ts <= ? LIMIT 1"""
FIND_TURN = """SELECT call_id, tool, json_extract(meta, '$.span_id'), json_extract(meta,
  '$.call_index') FROM events
 WHERE trace_id = ? AND snapshot = 'arguments' AND call_id != '' AND json_extract(meta,
   '$.parent_span_id') = ?
 AND json_extract(meta, '$.call_index') IS NOT NULL AND ts >= ? AND ts <= ? ORDER BY ts DESC, seq
   DESC LIMIT 256"""
FIND_ANNOUNCED = """SELECT call_id, tool, json_extract(meta, '$.call_index'), json_extract(meta,
  '$.turn_calls')
 FROM events WHERE trace_id = ? AND snapshot = 'arguments' AND call_id != '' AND json_extract(meta,
   '$.span_id') = ?
 AND json_extract(meta, '$.call_index') IS NOT NULL"""
TURN_ORPHANS = """SELECT seq, json_extract(meta, '$.turn_position') FROM events
 WHERE trace_id = ? AND call_id = '' AND json_extract(meta, '$.turn_span_id') = ?"""
# the HTTP spans under one parent already joined to a call of a turn (spans.turn_call orders them)
TURN_SPANS = """SELECT seq, json_extract(meta, '$.span_id'), ts FROM events WHERE trace_id = ? AND
  call_id = ?
 AND snapshot IN ('request', 'response') AND json_extract(meta, '$.parent_span_id') = ?"""
INSERT_EVENT = """INSERT OR IGNORE INTO events
 (event_id, trace_id, call_id, snapshot, tool, source, release, payload, logged_as_string, http,
   meta, ts,
  received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"""
NEW_EVENTS = (
    "SELECT seq, trace_id, call_id, length(payload) FROM events WHERE seq > ? ORDER BY seq LIMIT ?"
)
INDEX_EVENTS = (
    "INSERT INTO events_fts (rowid, body) SELECT seq, payload FROM events WHERE seq > ? AND seq <= "
    "?"
)
CALLS_BY_KEY = f"""SELECT c.trace_id, c.call_id, c.tool, c.version, {stagecols.seqs("c.")}
 FROM json_each(?) AS k JOIN calls AS c
 ON c.trace_id = json_extract(k.value, '$[0]') AND c.call_id = json_extract(k.value, '$[1]')"""
REBUILD_PAIRS = """INSERT INTO problem_pairs (problem_id, pair, count)
 SELECT ?1, p.key, sum(p.value) FROM problem_calls, json_each(pairs) AS p WHERE problem_id = ?1
   GROUP BY 2"""
# the call whose newest current snapshot is oldest: roughly the call that has waited longest
OLDEST_PENDING = f"""SELECT count(*), min(max({stagecols.each_present("coalesce({0}, 0)")}))
 FROM calls WHERE analyzed_version < version"""
# a list of values as one JSON parameter
IN_JSON_LIST = "IN (SELECT value FROM json_each(?))"
IN_JSON_NUMBERS = IN_JSON_LIST
KEYED_CALLS = """json_each(?) AS k JOIN calls AS c
 ON c.trace_id = json_extract(k.value, '$[0]') AND c.call_id = json_extract(k.value, '$[1]')"""
EVENTS_BY_SEQ = "SELECT seq, * FROM events WHERE seq IN (SELECT value FROM json_each(?))"
SET_PROGRESS = "INSERT OR REPLACE INTO progress (name, seq) VALUES (?, ?)"
# whether events of a trace wait for the projection (read through meanwhile: readthrough.py)
TRACE_UNPROJECTED = """SELECT EXISTS (SELECT 1 FROM events WHERE trace_id = ?
 AND seq > coalesce((SELECT seq FROM progress WHERE name = 'projected'), 0))"""
# whether events of a tool wait for the projection (a tool known by them alone: toolcalls.py)
TOOL_UNPROJECTED = """SELECT EXISTS (SELECT 1 FROM events WHERE tool = ?
 AND seq > coalesce((SELECT seq FROM progress WHERE name = 'projected'), 0))"""
# The calls of a batch, as a JSON array of [trace_id, call_id] pairs.
_TOUCHED = """SELECT DISTINCT json_extract(value, '$[0]') AS trace_id, json_extract(value, '$[1]')
  AS call_id
 FROM json_each(:calls)"""
_CURRENT = """(SELECT seq FROM events WHERE trace_id = t.trace_id AND call_id = t.call_id AND
  snapshot = '{0}'
   ORDER BY ts DESC, seq DESC LIMIT 1)"""
# One statement folds every touched call: the current version of each snapshot (latest ts,
# then latest seq), its facts, and a version bump when a current snapshot changed.
PROJECT_CALLS = f"""INSERT INTO calls (trace_id, call_id, tool, source, release, {stagecols.seqs()},
 status_code, first_ts, last_ts)
 SELECT t.trace_id, t.call_id,
  (SELECT tool FROM events WHERE trace_id = t.trace_id AND call_id = t.call_id AND tool IS NOT NULL
    ORDER BY seq DESC LIMIT 1),
  (SELECT source FROM events WHERE trace_id = t.trace_id AND call_id = t.call_id AND source IS NOT
    NULL
    ORDER BY seq DESC LIMIT 1),
  (SELECT release FROM events WHERE trace_id = t.trace_id AND call_id = t.call_id AND release IS
    NOT NULL
    ORDER BY seq DESC LIMIT 1),
  {stagecols.currents(_CURRENT)},
  coalesce((SELECT json_extract(http, '$.status_code') FROM events WHERE trace_id = t.trace_id AND
    call_id = t.call_id
    AND snapshot = 'response' ORDER BY ts DESC, seq DESC LIMIT 1),
   (SELECT json_extract(http, '$.status_code') FROM events WHERE trace_id = t.trace_id AND call_id =
    t.call_id AND snapshot = 'request' AND json_extract(http, '$.status_code') IS NOT NULL
    ORDER BY ts DESC, seq DESC LIMIT 1)),
  (SELECT min(ts) FROM events WHERE trace_id = t.trace_id AND call_id = t.call_id),
  (SELECT max(ts) FROM events WHERE trace_id = t.trace_id AND call_id = t.call_id)
 FROM ({_TOUCHED}) AS t
 WHERE EXISTS (SELECT 1 FROM events WHERE trace_id = t.trace_id AND call_id = t.call_id)
 ON CONFLICT(trace_id, call_id) DO UPDATE SET tool = excluded.tool, source = excluded.source,
 release = excluded.release,
 status_code = excluded.status_code, first_ts = excluded.first_ts, last_ts = excluded.last_ts,
 version = calls.version + ({stagecols.changed("calls", "IS NOT")}),
 {stagecols.set_excluded()}"""
# A call whose events all joined another call (an orphan span found its parent) goes away.
DROP_EMPTY_CALLS = f"""DELETE FROM calls WHERE (trace_id, call_id) IN (SELECT trace_id, call_id
  FROM ({_TOUCHED}) AS t
 WHERE NOT EXISTS (SELECT 1 FROM events WHERE trace_id = t.trace_id AND call_id = t.call_id))"""
REFRESH_TRACE = f"""INSERT OR REPLACE INTO traces (trace_id, first_ts, last_ts, calls, tools,
  sources,
 {", ".join(stagecols.HAS)}, complete, worst, kinds, status_codes, errors, warnings, loud_kinds)
 SELECT trace_id, min(first_ts), max(last_ts), count(*),
  (SELECT group_concat(t, ',') FROM (SELECT DISTINCT tool AS t FROM calls WHERE trace_id =
    :trace_id AND tool IS NOT
   NULL ORDER BY t)),
  (SELECT group_concat(s, ',') FROM (SELECT DISTINCT source AS s FROM calls WHERE trace_id =
    :trace_id AND source IS
   NOT NULL ORDER BY s)),
  {stagecols.each_present("min({0} IS NOT NULL)")},
  min({stagecols.COMPLETE}),
  CASE max(CASE worst WHEN 'error' THEN 3 WHEN 'warning' THEN 2 WHEN 'info' THEN 1 ELSE 0 END)
   WHEN 3 THEN 'error' WHEN 2 THEN 'warning' WHEN 1 THEN 'info' ELSE
   CASE WHEN max(analysis IS NOT NULL) THEN 'clean' END END,
  (SELECT group_concat(k, ',') FROM (SELECT DISTINCT value AS k FROM calls, json_each('["' ||
    replace(kinds, ',',
   '","') || '"]')
    WHERE trace_id = :trace_id AND kinds != '' ORDER BY k)),
  (SELECT group_concat(s, ',') FROM (SELECT DISTINCT status_code AS s FROM calls WHERE trace_id =
    :trace_id AND
   status_code IS NOT NULL ORDER BY s)),
  sum(errors), sum(warnings),
  coalesce((SELECT group_concat(k, ',') FROM (SELECT DISTINCT value AS k FROM calls, json_each('["'
    ||
   replace(loud_kinds, ',', '","') || '"]')
    WHERE trace_id = :trace_id AND loud_kinds != '' ORDER BY k)), '')
 FROM calls WHERE trace_id = :trace_id GROUP BY trace_id"""
DELETE_TRACE_KINDS = "DELETE FROM trace_kinds WHERE trace_id = ?"
DELETE_TRACE_TOOLS = "DELETE FROM trace_tools WHERE trace_id = ?"
INSERT_TRACE_KINDS = """INSERT INTO trace_kinds (trace_id, kind, last_ts)
 SELECT trace_id, value, last_ts FROM traces, json_each('["' || replace(kinds, ',', '","') || '"]')
 WHERE trace_id = ? AND kinds != ''"""
# oldest first (calls_pending_by_time): a tool's observed shapes learn its calls in the order they
# were made
CLAIM_PENDING = """UPDATE calls SET claimed_at = ?1 WHERE rowid IN (
 SELECT rowid FROM calls WHERE analyzed_version < version AND (claimed_at IS NULL OR claimed_at <
   ?2)
 ORDER BY first_ts LIMIT ?3) RETURNING trace_id, call_id, version"""
INSERT_TRACE_TOOLS = """INSERT INTO trace_tools (trace_id, tool, last_ts)
 SELECT DISTINCT c.trace_id, c.tool, t.last_ts FROM calls c JOIN traces t ON t.trace_id = c.trace_id
 WHERE c.trace_id = ? AND c.tool IS NOT NULL"""
# events go first, one trace at a time (upkeep)
DELETE_TRACE = (
    DELETE_TRACE_TOOLS,
    "DELETE FROM calls WHERE trace_id = ?",
    DELETE_TRACE_KINDS,
    "DELETE FROM traces WHERE trace_id = ?",
)
INDEXED_TEXT = "SELECT seq, payload FROM events WHERE trace_id = ?"
UNINDEX = "INSERT INTO events_fts (events_fts, rowid, body) VALUES ('delete', ?, ?)"
