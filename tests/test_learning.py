"""What a tool's calls teach, whatever their order, batches and learners.

Issue 32, item 5: the same calls leave the same learnt state and give the same findings."""

import threading

import orjson
import pytest
from test_realworld_determinism import SLICE, shuffled, verdicts

from bench import realworld as bench
from tests import realworld
from webapp import pipeline
from webapp.contracts import read_contracts
from webapp.ingest import parse_body
from webapp.pipeline.contracts import save_contracts
from webapp.pipeline.learning import judged_by
from webapp.store import Store, StoreUnavailable

TOOL = "getRepo"


def send(store, envelopes) -> None:
    pipeline.store_batch(store, parse_body(b"\n".join(orjson.dumps(e) for e in envelopes)), None)


def repo_call(n: int, release: str, documented: bool = True) -> list[dict]:
    """Return the three events of a call answered by GitHub's error body."""
    common = {
        "trace_id": f"{n + 1:032x}",
        "call_id": "call_01",
        "tool": TOOL,
        "ts": f"2026-11-20T09:{n:02d}:00Z",
        "release": release,
    }
    answer = {"message": "Not Found", "status": "404"}
    if documented:
        answer["documentation_url"] = "https://docs.github.com/rest"
    return [
        {**common, "snapshot": "arguments", "payload": {"repo": f"octo/r{n}"}},
        {
            **common,
            "snapshot": "request",
            "payload": {"repo": f"octo/r{n}"},
            "http": {"method": "POST", "url": "https://api.example.com/repos"},
        },
        {**common, "snapshot": "response", "payload": answer, "http": {"status_code": 404}},
    ]


def lost_fields(store, n: int) -> list[tuple]:
    call = store.get_trace(f"{n + 1:032x}")["calls"][0]
    return [
        (f["kind"], f["severity"], f["right"]["path"])
        for f in call["findings"]
        if f["kind"] == "error_shape" and f["right"]
    ]


@pytest.mark.parametrize("answers", ["with their calls", "after their calls were learnt"])
def test_an_error_answer_teaches_the_tools_envelope_whenever_it_arrives(store, answers):
    earlier = [e for n in range(8) for e in repo_call(n, "1.0")]
    if answers == "with their calls":
        send(store, earlier)
    else:
        send(store, [e for e in earlier if e["snapshot"] != "response"])
        # learnt from its arguments and request while its answer is on its way
        pipeline.catch_up(store)
        send(store, [e for e in earlier if e["snapshot"] == "response"])
    pipeline.catch_up(store)
    send(store, [e for n in range(8, 11) for e in repo_call(n, "1.1", documented=False)])
    pipeline.catch_up(store)
    # counted once each, under their status too (webapp/inference/error_fields.py)
    assert store.path_counts(TOOL)[("error", "/documentation_url")] == {
        "calls": 8,
        "status 404": 8,
    }
    for n in range(8, 11):
        assert lost_fields(store, n) == [("error_shape", "warning", "/documentation_url")]


@pytest.fixture
def reference(engine, tmp_path, request):
    """A second database of the test's engine, for one learner's run."""
    if engine == "sqlite":
        return tmp_path / "one-learner.db"
    databases = request.getfixturevalue("postgres_databases")
    url = databases.new()
    request.addfinalizer(lambda: databases.drop(url))
    return url


def learnt_state(store, tools) -> dict:
    """Return, per tool, what its learning left, and what its verdicts read of it.

    Apart from how many calls each argument was dropped in: that is what each call's analysis
    found, and a newer release's call analysed before its tool's older calls came (shuffled
    batches) keeps the count its first analysis gave; analysed again under the history it
    counts nothing twice. What the verdicts read of the counts is compared whole (judged_by)."""
    return {
        t.name: (
            store.release_state(t.name),
            {where: _sent(counts) for where, counts in store.path_counts(t.name).items()},
            sorted(store.inferred_pairs(t.name)),
            store.consumed_arguments(t.name),
            _judged(store, t.name),
        )
        for t in tools
    }


def _sent(counts: dict) -> dict:
    return {k: n for k, n in counts.items() if k not in ("dropped", "new:dropped")}


def _judged(store, tool: str) -> tuple:
    contract, history = judged_by(store, tool)
    return {k: v for k, v in contract.items() if k != "updated_at"}, history


def findings(store, calls) -> dict:
    return verdicts((c, store.get_trace(f"{c['index'] + 1:032x}")["calls"][0]) for c in calls)


def analysed_or_refused(store) -> bool:
    """Analyse a few pending calls as the analyser does, a refusal (a deadlock) tried again.

    PostgreSQL ends one of two transactions that wait on each other; the analyser's loop tries
    a refused store again (ops/analyser.py), and what was rolled back is still pending."""
    try:
        return bool(pipeline.analyze_pending(store, 3))
    except StoreUnavailable as refused:
        if "deadlock" not in str(refused):
            raise
        return True


def through_learners(db_path, tools, calls, batches, learners: int) -> tuple[dict, dict]:
    """Return the learnt state and the findings the calls leave.

    The calls sent in `batches` while `learners` workers analyse them, each on its own connection,
    a few calls a batch; then one finishes what they left."""
    store = Store.open(db_path)
    imported = read_contracts(realworld.definitions(tools))
    save_contracts(store, imported.contracts, imported.only_if_missing)
    sent, failures = threading.Event(), []

    def learner():
        try:
            mine = Store.open(db_path)
        except Exception as error:  # noqa: BLE001 (reported by the test)
            failures.append(error)
            return
        try:
            # nothing pending: wait a moment rather than spin (three spinning threads starved the
            # tests beside this one)
            while analysed_or_refused(mine) or not sent.wait(0.01):
                pass
        except Exception as error:  # noqa: BLE001 (reported by the test)
            failures.append(error)
        finally:
            mine.close()

    threads = [threading.Thread(target=learner) for _ in range(learners)]
    for thread in threads:
        thread.start()
    for batch in batches([e for c in calls for e in bench.events(c)]):
        send(store, batch)
    sent.set()
    for thread in threads:
        thread.join()
    assert not failures
    pipeline.catch_up(store)
    try:
        return learnt_state(store, tools), findings(store, calls)
    finally:
        store.close()


@pytest.mark.slow
def test_learners_working_at_once_leave_what_one_learner_leaves(db_path, reference):
    tools = [t for t in realworld.TOOLS if t.name in SLICE]
    calls = realworld.generate(32, 24, 2, tools)
    state, found = through_learners(reference, tools, calls, bench.in_batches, learners=1)
    # three: with the sender's, as many connections as a process's PostgreSQL pool holds
    mixed_state, mixed = through_learners(db_path, tools, calls, shuffled, learners=3)
    assert mixed_state == state
    assert mixed == found


def test_calls_a_read_analyses_first_teach_as_those_the_analyser_does(store, reference):
    calls = [e for n in range(8) for e in repo_call(n, "1.0")]
    send(store, calls)
    store.project_all()
    for n in range(8):
        # a trace page opened before the background analyser reached its call
        pipeline.fresh_trace(store, f"{n + 1:032x}", budget=30)
    # what their reads taught queued some again: the analyser finishes
    pipeline.catch_up(store)
    analysed = Store.open(reference)
    send(analysed, calls)
    pipeline.catch_up(analysed)
    assert store.path_counts(TOOL) == analysed.path_counts(TOOL)
    assert store.evidence(TOOL) == analysed.evidence(TOOL)
    analysed.close()


def service_call(n: int, tool: str, release: str, answer: dict | None) -> list[dict]:
    """Return the events of a call to one service, answered by `answer` (an error) or a success."""
    common = {
        "trace_id": f"{n + 1:032x}",
        "call_id": "call_01",
        "tool": tool,
        "ts": f"2026-11-20T{9 + n // 60:02d}:{n % 60:02d}:00Z",
        "release": release,
    }
    url = f"https://api.example.com/v1/{tool}/{n}"
    status, body = (429, answer) if answer is not None else (200, {"id": n})
    return [
        {**common, "snapshot": "arguments", "payload": {"id": n}},
        {**common, "snapshot": "request", "payload": None, "http": {"method": "GET", "url": url}},
        {**common, "snapshot": "response", "payload": body, "http": {"status_code": status}},
    ]


@pytest.mark.parametrize("order", ["service first", "tool first"])
def test_a_tool_without_error_answers_of_its_own_is_judged_by_its_services(store, order):
    throttled = {"errors": [{"code": "rate_limited", "message": "Slow down"}]}
    # another tool of the service answered errors; this one only succeeded before
    service = [
        e
        for n in range(8)
        for e in service_call(n, "listOrders", "1.0", throttled if n % 2 else None)
    ]
    tool = [e for n in range(8, 16) for e in service_call(n, "getOrder", "1.0", None)]
    # the service's newest release: what its earlier ones answered is what counts
    newest = [
        *service_call(16, "getOrder", "1.1", {"errors": [{"code": "rate_limited"}]}),
        *service_call(17, "getOrder", "1.1", throttled),
        *service_call(18, "listOrders", "1.1", None),
    ]
    for part in (service, tool, newest) if order == "service first" else (tool, newest, service):
        send(store, part)
        pipeline.catch_up(store)
    pipeline.catch_up(store)
    assert lost_fields(store, 16) == [("error_shape", "warning", "/errors/0/message")]
    assert lost_fields(store, 17) == []
