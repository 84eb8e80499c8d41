"""The trace list's SQL.

The same traces as a naive filter, page by page, and counts that stop at a cap."""

import random
import re
import sqlite3
from dataclasses import replace

import pytest
from databases import engines

from webapp.common import times
from webapp.ingest import Event
from webapp.store import Store, listing, stats
from webapp.store.filters import SEVERITIES, SNAPSHOTS, STATUS_CLASSES, TraceQuery

TOOLS = ("findOrders", "sendEmail", "createNote")
WORDS = ("invoice", "parcel", "ledger", "draft")
KINDS = {"error": "type_changed", "warning": "dropped", "info": "case_changed"}


def _trace_id(i: int) -> str:
    # a few ids share a long prefix ("ab"), the rest are spread out
    return ("ab" if i % 9 == 0 else f"{(i * 7919) % 256:02x}") + f"{i:030x}"


def _events(i: int, rng: random.Random) -> list[Event]:
    # many equal times
    trace_id, ts = _trace_id(i), f"2026-11-20T{9 + i % 5:02d}:{i % 3 * 20:02d}:00Z"
    calls = [TOOLS[i % 3]] + ([TOOLS[(i + 1) % 3]] if i % 4 == 0 else [])
    events = []
    for n, tool in enumerate(calls):
        for snapshot in SNAPSHOTS:
            if (
                snapshot == "response"
                and i % 10 == 3
                or snapshot == "arguments"
                and i % 13 == 5
                or snapshot == "request"
                and i % 17 == 8
            ):
                continue
            status = {0: 200, 1: 404, 2: 503}[i % 3] if i % 5 else 302
            events.append(
                Event(
                    event_id=f"e{i}-{n}-{snapshot}",
                    trace_id=trace_id,
                    call_id=f"call_{n}",
                    snapshot=snapshot,
                    tool=tool,
                    source="http",
                    ts=ts,
                    payload={"note": " ".join(rng.choices(WORDS, k=2)), "n": i},
                    http={"status_code": status} if snapshot == "response" else None,
                )
            )
    return events


def _analysis(i: int, n: int) -> dict:
    severity = ("error", "warning", "info", None)[(i + n) % 4] if i % 6 else None
    findings = [{"kind": KINDS[severity], "severity": severity, "path": "/n"}] if severity else []
    summary = {s: int(severity == s) for s in ("error", "warning", "info")}
    return {
        "findings": findings,
        "summary": summary,
        "worst": severity or "clean",
        "validation": {},
    }


@pytest.fixture(scope="module", params=engines(sqlite_only=False))
def small(request, tmp_path_factory):
    """A store of 80 traces with every kind of filter value, analysed through the store's own
    API."""
    if request.param == "postgresql":
        databases = request.getfixturevalue("postgres_databases")
        url = databases.new()
        request.addfinalizer(lambda: databases.drop(url))
        store = Store.open(url)
    else:
        store = Store(tmp_path_factory.mktemp("listing") / "small.db")
    rng = random.Random(7)
    store.add_events([event for i in range(80) for event in _events(i, rng)])
    store.project_all()
    for call in store.claim_pending(1000):
        i = int(call["trace_id"][2:], 16)
        # a few calls stay pending
        if i % 11 != 7:
            store.save_analysis(
                call["trace_id"],
                call["call_id"],
                call["version"],
                _analysis(i, int(call["call_id"][-1])),
            )
    yield store
    store.close()


def holds_phrase(text: str, phrase: str) -> bool:
    """Say whether the words of a phrase come one after another in a text (words: runs of letters
    and digits)."""
    words, wanted = re.findall(r"[^\W_]+", text.lower()), re.findall(r"[^\W_]+", phrase.lower())
    return bool(wanted) and any(words[i : i + len(wanted)] == wanted for i in range(len(words)))


def naive(store: Store, query: TraceQuery) -> list[str]:
    """Filter every trace in Python: the meaning the SQL must keep."""
    db = store.db
    tools = {}
    for trace_id, tool in db.execute("SELECT trace_id, tool FROM calls WHERE tool IS NOT NULL"):
        tools.setdefault(trace_id, set()).add(tool)
    found = (
        {
            trace_id
            for trace_id, payload in db.execute("SELECT trace_id, payload FROM events")
            if holds_phrase(payload, query.q)
        }
        if query.q
        else set()
    )
    rows = []
    for t in db.query("SELECT * FROM traces"):
        kinds, codes = (
            set((t["kinds"] or "").split(",")) - {""},
            (t["status_codes"] or "").split(","),
        )
        q = query.q
        keep = [
            not query.tool or query.tool in tools.get(t["trace_id"], ()),
            not query.kind or query.kind in kinds,
            not query.severity
            or t["worst"] in ({"clean", "info"} if query.severity == "clean" else {query.severity})
            # a trace missing a stage is never clean
            and (query.severity != "clean" or t["complete"]),
            not query.status or any(code[:1] == query.status[0] for code in codes if code),
            not query.missing or not t[f"has_{query.missing}"],
            # as times, not as text
            not query.since or times.parse(t["last_ts"]) >= times.parse(query.since),
            not query.until or times.parse(t["last_ts"]) <= times.parse(query.until),
            not q
            or t["trace_id"].startswith(q.lower())
            or t["trace_id"] in found
            or q.lower() in {name.lower() for name in tools.get(t["trace_id"], ())},
        ]
        if all(keep):
            rows.append((t["last_ts"], t["trace_id"]))
    return [trace_id for _, trace_id in sorted(rows, reverse=True)]


def paged(store: Store, query: TraceQuery) -> list[str]:
    """Walk every page of the list with its keyset cursor."""
    ids, cursor = [], None
    while True:
        traces, cursor = store.find_traces(query, cursor)
        ids += [t["trace_id"] for t in traces]
        if cursor is None:
            return ids


QUERIES = [
    {},
    {"tool": "sendEmail"},
    {"kind": "dropped"},
    {"severity": "error"},
    {"severity": "warning"},
    {"severity": "info"},
    {"severity": "clean"},
    {"status": "2xx"},
    {"status": "3xx"},
    {"status": "4xx"},
    {"status": "5xx"},
    {"missing": "arguments"},
    {"missing": "response"},
    {"missing": "request"},
    {"since": "2026-11-20T10:00:00Z", "until": "2026-11-20T12:00:00Z"},
    {"tool": "findOrders", "kind": "type_changed"},
    {"tool": "sendEmail", "severity": "error"},
    {"kind": "dropped", "missing": "response"},
    {"tool": "createNote", "status": "5xx", "severity": "clean"},
    {"q": "ledger"},
    {"q": "ab"},
    {"q": "a"},
    {"q": _trace_id(17)},
    {"q": "sendemail"},
    {"q": "SendEmail"},
    {"q": "ledger", "tool": "findOrders"},
    {"q": "draft", "severity": "warning", "status": "4xx"},
    {"q": "findOrders", "kind": "dropped"},
    {"q": "ab", "missing": "response"},
    {"q": "no-such-word"},
    {"q": "parcel", "kind": "dropped", "since": "2026-11-20T11:00:00Z"},
]


@pytest.mark.parametrize(
    "args", QUERIES, ids=lambda args: "&".join(f"{k}={v}" for k, v in args.items()) or "all"
)
@pytest.mark.parametrize("limit", [7, 50])
def test_every_page_of_the_list_holds_the_same_traces_as_a_naive_filter(small, args, limit):
    query = TraceQuery(limit=limit, **args)
    expected = naive(small, query)
    assert paged(small, query) == expected
    # no filter here is tested on an empty answer alone
    assert expected or args == {"q": "no-such-word"}


@pytest.mark.parametrize(
    "args", QUERIES, ids=lambda args: "&".join(f"{k}={v}" for k, v in args.items()) or "all"
)
def test_a_count_is_exact_below_the_cap_and_stops_one_past_it(small, args):
    query = TraceQuery(**args)
    true_count = len(naive(small, query))
    for cap in (3, 1000):
        sql, params = small.listing.count_sql(query, cap)
        assert small.db.execute(sql, params).fetchone()[0] == min(true_count, cap + 1)


def test_counts_per_value_apply_the_other_filters(small):
    query = TraceQuery(tool="sendEmail", severity="error")
    # no time budget: a loaded machine must not leave a count unknown here
    counts = stats.filter_counts(small, query, budget_s=None)
    for value in SEVERITIES:
        assert counts["severity"][value] == len(naive(small, replace(query, severity=value)))
    for value in STATUS_CLASSES:
        assert counts["status"][value] == len(naive(small, replace(query, status=value)))
    assert counts["tool"] == {
        t: n for t in TOOLS if (n := len(naive(small, replace(query, tool=t))))
    }
    assert counts["kind"] == {
        k: n for k in KINDS.values() if (n := len(naive(small, replace(query, kind=k))))
    }
    assert counts["kind"] and counts["tool"]


def test_counts_past_the_time_budget_are_unknown_not_zero(small):
    counts = stats.filter_counts(small, TraceQuery(), budget_s=0)
    assert set(counts["tool"]) == set(TOOLS) and set(counts["tool"].values()) == {None}
    assert set(counts["missing"].values()) == {None}


def test_tool_and_kind_names_are_listed_from_their_indexes(small):
    assert stats.tool_names(small) == sorted(TOOLS)
    assert stats.kind_names(small) == sorted(KINDS.values())


def bulk_traces(store: Store, count: int, word: str = "", tool: str = "bulkTool") -> None:
    """Insert `count` one-call traces straight into the tables, as bench/gendb.py does."""
    if store.engine == "postgresql":
        return _bulk_traces_postgres(store, count, word, tool)
    conn = sqlite3.connect(
        store.db.conn.execute("PRAGMA database_list").fetchone()[2], isolation_level=None
    )
    start = conn.execute("SELECT coalesce(max(seq), 0) FROM events").fetchone()[0] + 1
    rows = [
        (
            start + i,
            f"bulk-{start + i}",
            f"ff{start + i:030x}",
            f"2026-01-01T00:{i % 60:02d}:00.{i:06d}Z",
        )
        for i in range(count)
    ]
    conn.execute("BEGIN")
    conn.executemany(
        "INSERT INTO events (seq, event_id, trace_id, call_id, snapshot, tool, payload, ts, "
        "received_at) "
        f"VALUES (?, ?, ?, 'call_01', 'arguments', '{tool}', '{{\"w\": \"{word}\"}}', ?, ?)",
        [(seq, eid, tid, ts, ts) for seq, eid, tid, ts in rows],
    )
    conn.executemany(
        "INSERT INTO traces (trace_id, first_ts, last_ts, calls, tools, has_arguments, "
        "has_request, "
        f"has_response, complete, worst) VALUES (?, ?, ?, 1, '{tool}', 1, 0, 0, 0, 'clean')",
        [(tid, ts, ts) for _, _, tid, ts in rows],
    )
    conn.executemany(
        f"INSERT INTO trace_tools (trace_id, tool, last_ts) VALUES (?, '{tool}', ?)",
        [(tid, ts) for _, _, tid, ts in rows],
    )
    conn.execute(
        "INSERT INTO events_fts (rowid, body) SELECT seq, payload FROM events WHERE seq >= ?",
        (start,),
    )
    conn.execute(
        "INSERT OR REPLACE INTO progress (name, seq) SELECT 'projected', max(seq) FROM events"
    )
    conn.execute("COMMIT")
    conn.close()


def _bulk_traces_postgres(store: Store, count: int, word: str, tool: str) -> None:
    from webapp.store.postgresql.sql import WORDS

    with store.write() as conn:
        start = conn.execute("SELECT coalesce(max(seq), 0) FROM events").fetchone()[0] + 1
        rows = [
            (f"bulk-{start + i}", f"ff{start + i:030x}", f"2026-01-01T00:{i % 60:02d}:00.{i:06d}Z")
            for i in range(count)
        ]
        conn.executemany(
            "INSERT INTO events (event_id, trace_id, call_id, snapshot, tool, payload, ts, "
            "received_at) "
            f"VALUES (?, ?, 'call_01', 'arguments', '{tool}', '{{\"w\": \"{word}\"}}', ?, ?)",
            [(eid, tid, ts, ts) for eid, tid, ts in rows],
        )
        conn.execute(
            f"UPDATE events SET words = {WORDS.format('payload')} WHERE seq >= ?", (start,)
        )
        conn.executemany(
            "INSERT INTO traces (trace_id, first_ts, last_ts, calls, tools, has_arguments, "
            "has_request, "
            f"has_response, complete, worst) VALUES (?, ?, ?, 1, '{tool}', 1, 0, 0, 0, 'clean')",
            [(tid, ts, ts) for _, tid, ts in rows],
        )
        conn.executemany(
            f"INSERT INTO trace_tools (trace_id, tool, last_ts) VALUES (?, '{tool}', ?)",
            [(tid, ts) for _, tid, ts in rows],
        )


def test_a_search_for_a_very_common_word_reads_only_the_newest_matches(store):
    bulk_traces(store, listing.SEARCH_CAP + 20, word="everywhere")
    assert stats.search_capped(store, "everywhere") and not stats.search_capped(store, "bulkTool")
    newest = store.db.execute(
        "SELECT trace_id FROM events ORDER BY seq DESC LIMIT ?", (listing.SEARCH_CAP,)
    )
    listed = paged(store, TraceQuery(q="everywhere", limit=500))
    assert len(listed) == listing.SEARCH_CAP and set(listed) == {row[0] for row in newest}
    # a tool name is not capped
    assert len(paged(store, TraceQuery(q="bulktool", limit=500))) == listing.SEARCH_CAP + 20


@pytest.mark.parametrize(
    "query, named",
    [
        ("severity=bogus", "severity"),
        ("missing=everything", "missing"),
        ("status=2XX", "status"),
        ("kind=not_a_kind", "kind"),
        ("since=yesterday", "since"),
        ("until=30/11/2026", "until"),
        ("limit=abc", "limit"),
        ("limit=-1", "limit"),
        ("limit=0", "limit"),
        ("limit=501", "limit"),
    ],
)
def test_the_api_refuses_a_filter_value_it_cannot_use_and_names_it(client, query, named):
    response = client.get(f"/api/v1/traces?{query}")
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert error["code"] == "bad_parameter" and error["retryable"] is False
    assert error["message"].startswith(named)


@pytest.mark.parametrize(
    "query",
    [
        "severity=clean",
        "missing=response",
        "status=4xx",
        "kind=type_changed",
        "since=2026-11-30",
        "until=2026-11-30T09:00:00Z",
        "since=2026-11-30T09:00",
        "until=2026-11-30T09:00:00.5%2B01:00",
        "limit=500",
    ],
)
def test_the_api_takes_every_documented_filter_value(client, query):
    assert client.get(f"/api/v1/traces?{query}").status_code == 200


def test_the_list_page_ignores_a_stale_filter_value_instead_of_failing(client):
    assert client.get("/?severity=bogus&limit=abc").status_code == 200


@pytest.mark.parametrize(
    "args", ["since=yesterday", "until=2026-13-45", "since=2026-02-30T10:00:00Z&until=0"]
)
def test_the_list_page_ignores_a_since_or_until_that_is_no_time_as_the_problem_list_does(
    client, args
):
    client.post(
        "/api/v1/ingest",
        json={"trace_id": "t1", "call_id": "c1", "snapshot": "arguments", "payload": {}},
    )
    html = client.get(f"/?{args}").get_data(as_text=True)
    assert html.count('class="trace-row') == 1
    # the form says it was not used
    assert 'name="since" value=""' in html and 'name="until" value=""' in html


def ingest_two_tools(client):
    """Store one call of findOrders (trace t-orders) and one of sendEmail (trace t-email)."""
    for trace_id, tool in (("t-orders", "findOrders"), ("t-email", "sendEmail")):
        event = {"trace_id": trace_id, "snapshot": "request", "tool": tool, "payload": {"q": "x"}}
        assert client.post("/api/v1/ingest", json=event).status_code == 200


@pytest.mark.parametrize(
    "url, found",
    [
        # nothing left once the NUL is dropped: no filter at all
        ("/api/v1/traces?q=%00", ["t-email", "t-orders"]),
        ("/api/v1/traces?tool=%00", ["t-email", "t-orders"]),
        # with the NUL and newline kept, SQLite would read no match (or stop reading at the NUL)
        ("/api/v1/traces?q=find%00Ord%0A", ["t-orders"]),
        ("/index.json?q=se%00nd%0A", ["t-email"]),
        ("/api/v1/traces?tool=find%00Orders", ["t-orders"]),
    ],
)
def test_control_characters_in_a_search_are_dropped_not_a_server_error(client, url, found):
    ingest_two_tools(client)
    answer = client.get(url)
    assert answer.status_code == 200
    assert [trace["trace_id"] for trace in answer.get_json()["traces"]] == found


def test_the_list_page_searches_without_the_control_characters_and_shows_what_it_searched(client):
    ingest_two_tools(client)
    answer = client.get("/?q=find%00Ord%0A")
    html = answer.get_data(as_text=True)
    assert answer.status_code == 200 and html.count('class="trace-row') == 1 and "t-orders" in html
    assert '<input type="search" name="q" value="findOrd"' in html


@pytest.mark.parametrize(
    "query, code", [("severity=bogus", "bad_parameter"), ("cursor=abc", "bad_cursor")]
)
def test_the_list_page_json_twin_is_as_strict_as_the_api(client, query, code):
    response = client.get(f"/index.json?{query}")
    assert response.status_code == 400 and response.get_json()["error"]["code"] == code


@pytest.mark.parametrize("typed", ["findOrd", "findorders", "FINDO"])
def test_search_finds_a_tool_by_the_start_of_its_name(client, typed):
    client.post(
        "/api/v1/ingest",
        json={
            "trace_id": "t-orders",
            "snapshot": "request",
            "tool": "findOrders",
            "payload": {"q": "x"},
        },
    )
    client.post(
        "/api/v1/ingest",
        json={
            "trace_id": "t-email",
            "snapshot": "request",
            "tool": "sendEmail",
            "payload": {"q": "x"},
        },
    )
    ids = [t["trace_id"] for t in client.get(f"/api/v1/traces?q={typed}").get_json()["traces"]]
    assert ids == ["t-orders"]
