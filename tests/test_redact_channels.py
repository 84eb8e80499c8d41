"""detect-secrets as the oracle beyond payloads.

URLs of every shape, the envelope's free text (tool, source, release), ticket links, and what pages,
the API and alert bodies show built from them.

A URL is read as the detector would read it stored and as a person would read it decoded, so a token
percent-encoded in a query value or glued to Telegram's `bot` path word counts as found.
"""

from urllib.parse import quote, quote_plus, unquote, unquote_plus

import orjson
import pytest
from problem_helpers import CONTRACT, at, call, send, trace
from test_redact_oracle import SECRETS, found

from webapp import pipeline
from webapp.alerts.messages import slack_body, webhook_body
from webapp.ingest.model import Event
from webapp.ops.sender import deliver_due
from webapp.problems.states import parse_change
from webapp.redaction.redactor import Redactor

URL_SHAPES = {
    "path segment": lambda s: f"https://api.example.com/v1/{quote(s, safe='')}/send",
    "encoded query value": lambda s: (
        f"https://api.example.com/v1?debug={quote_plus('token ' + s)}&page=2"
    ),
    "raw query value": lambda s: f"https://api.example.com/v1?page=2&cfg={s}",
    "fragment": lambda s: f"https://app.example.com/callback#state=x&cfg={quote(s, safe='')}",
    "userinfo": lambda s: f"https://deploy:{quote(s, safe='')}@git.example.com/repo.git",
}


def found_read_as_url(text: str) -> set[str]:
    """What the detector finds in a text as stored and as decoded (a URL's parts mean what they
    decode to)."""
    # the marker in a link the page built is no secret
    text = text.replace("%5BREDACTED%5D", "[REDACTED]")
    return set(found(text)) | set(found(unquote(text))) | set(found(unquote_plus(text)))


def found_anywhere(value) -> set[str]:
    """What the detector finds in any string of a JSON value (or a text), read as a URL too."""
    if isinstance(value, (bytes, str)):
        value = value.decode() if isinstance(value, bytes) else value
        try:
            value = orjson.loads(value)
        except orjson.JSONDecodeError:
            return found_read_as_url(value)
    kinds, stack = set(), [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack += [*item.keys(), *item.values()]
        elif isinstance(item, list):
            stack += item
        elif isinstance(item, str):
            kinds |= found_read_as_url(item)
    return kinds


# the shapes in which the detector finds each kind (it misses an Artifactory key between slashes)
URL_CASES = [
    (kind, shape)
    for kind in SECRETS
    for shape in URL_SHAPES
    if found_read_as_url(URL_SHAPES[shape](SECRETS[kind]))
]


def event(**fields) -> Event:
    return Event(
        event_id="e1",
        trace_id="t1",
        call_id="c1",
        snapshot="request",
        payload={"limit": 5},
        **fields,
    )


def test_the_oracle_finds_nearly_every_kind_in_every_url_shape():
    """So the URL test below covers what it claims, and can fail."""
    assert len(URL_CASES) >= len(SECRETS) * len(URL_SHAPES) - 3


@pytest.mark.parametrize("kind,shape", URL_CASES, ids=[f"{k}-{s}" for k, s in URL_CASES])
def test_nothing_the_detector_finds_stays_in_a_url_of_any_shape(kind, shape):
    url = URL_SHAPES[shape](SECRETS[kind])
    before = found_read_as_url(url)
    redactor = Redactor()
    stored = redactor.event(event(http={"method": "GET", "url": url})).http["url"]
    for kept in (stored, redactor.value({"link": url})["link"], redactor.url(url)):
        assert not found_read_as_url(kept) & before, kept
        # still a URL a person can read
        assert kept.startswith(url.split("/", 3)[0] + "//")


def test_a_telegram_token_in_its_api_path_and_an_encoded_token_are_redacted_and_the_url_kept_readable():
    redactor = Redactor()
    telegram = (
        "https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0/sendMessage"
    )
    assert redactor.url(telegram) == "https://api.telegram.org/bot[REDACTED]/sendMessage"
    encoded = (
        "https://api.example.com/x?debug=token%20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&q=ok"
    )
    assert (
        redactor.event(event(http={"url": encoded})).http["url"]
        == "https://api.example.com/x?debug=[REDACTED]&q=ok"
    )
    plain = "https://api.example.com/orders/ord_8f3a2b1c9d?page=2&sort=desc%20by%20date#top"
    assert (
        redactor.url(plain) == plain
        and redactor.event(event(http={"url": plain})).http["url"] == plain
    )


@pytest.mark.parametrize("kind", list(SECRETS))
def test_free_text_envelope_fields_are_redacted_and_ids_kept(kind):
    # envelope fields are one printable line
    text = f"deploy {SECRETS[kind]}".replace("\n", " ")
    before = found_read_as_url(text)
    redacted = Redactor().event(event(tool=f"agent {text}", source=f"shipper {text}", release=text))
    for field in (redacted.tool, redacted.source, redacted.release):
        assert (
            field.split()[0] in ("agent", "shipper", "deploy")
            and not found_read_as_url(field) & before
        ), field
    assert (redacted.trace_id, redacted.call_id, redacted.event_id) == ("t1", "c1", "e1")


def test_ticket_links_are_stored_redacted_and_links_that_are_not_http_urls_are_refused(
    client, store
):
    store.put_tool("findOrders", CONTRACT)
    send(client, *call(trace(1), at(-5)))
    pipeline.catch_up(store)
    pid = client.get("/api/v1/problems").get_json()["problems"][0]["id"]
    links = [
        URL_SHAPES[shape](SECRETS[kind]).replace("api.example.com", "tracker.example.com")
        for kind, shape in URL_CASES[::3]
        if shape != "raw query value"
        # a raw `"` or space is no URL
    ][:48]
    links.append("https://user:hunter2@tracker.example.com/INC-8?token=abcdef123456")
    before = found_anywhere(links)
    answer = client.patch(f"/api/v1/problems/{pid}", json={"links": links})
    assert answer.status_code == 200
    stored = answer.get_json()["links"]
    assert not found_anywhere(stored) & before
    # links that redact alike are one link
    assert stored == list(dict.fromkeys(map(Redactor().url, links)))
    assert "https://user:[REDACTED]@tracker.example.com/INC-8?token=[REDACTED]" in stored
    assert "hunter2" not in client.get(f"/problems/{pid}").get_data(as_text=True)
    # a round trip
    assert client.patch(f"/api/v1/problems/{pid}", json={"links": stored}).status_code == 200
    for bad in (
        "javascript:alert(1)",
        "ftp://tracker.example.com/x",
        "https://",
        "tracker.example.com/INC-8",
        "https://tracker.example.com/a b",
        "https://x.example.com/<script>",
        "https://x.example.com:port/",
    ):
        refused = client.patch(f"/api/v1/problems/{pid}", json={"links": [bad]})
        assert refused.status_code == 400 and refused.get_json()["error"]["code"] == "bad_change", (
            bad
        )
    assert client.get(f"/api/v1/problems/{pid}").get_json()["links"] == stored


def test_pages_the_api_and_alert_bodies_built_from_secret_envelopes_and_urls_hold_none(
    client, store
):
    """Every kind of secret, sent in the release, the source and the request URL of a broken
    call."""
    store.put_tool("findOrders", CONTRACT)
    sent = []
    for n, secret in enumerate(SECRETS.values()):
        text = secret.replace("\n", " ")
        events = call(
            trace(n + 1), at(-30 + n * 0.1), release=f"deploy {text}", source=f"agent {text}"
        )
        events[1]["http"]["url"] = URL_SHAPES[list(URL_SHAPES)[n % len(URL_SHAPES)]](secret)
        sent += [{**e, "tool": f"tool{n}"} for e in events]
    before = found_anywhere(sent)
    assert len(before) > 20
    send(client, *sent)
    pipeline.catch_up(store)
    problems = client.get("/api/v1/problems?limit=500").get_json()["problems"]
    assert len(problems) == len(SECRETS)
    shown = [orjson.dumps(problems)]
    for problem in problems:
        pid = problem["id"]
        detail = client.get(f"/api/v1/problems/{pid}").get_json()
        shown += [
            orjson.dumps(detail),
            webhook_body("problem.regressed", "2026-12-02T00:00:00Z", detail),
            slack_body("problem.regressed", detail),
        ]
        shown += [
            client.get(path).get_data()
            for path in (f"/problems/{pid}", f"/problems/{pid}.md", f"/problems/{pid}.json")
        ]
        latest = detail["examples"]["latest"]
        shown += [
            client.get(f"/api/v1/traces/{latest['trace_id']}").get_data(),
            client.get(f"/traces/{latest['trace_id']}").get_data(),
        ]
    leaks = {kind for body in shown for kind in found_anywhere(body) & before}
    assert not leaks


def test_a_delivered_regression_carries_its_ticket_links_redacted(client, app, store, receiver):
    rule = client.post(
        "/api/v1/alerts",
        json={"url": receiver.url, "on": ["new", "regressed"], "min_interval_s": 0},
    ).get_json()
    receiver.secret = rule["secret"]
    store.put_tool("findOrders", CONTRACT)
    secret_url = URL_SHAPES["path segment"](SECRETS["GitHub Token"])
    send(
        client,
        *call(
            trace(1),
            at(-10),
            release=f"deploy {SECRETS['Secret Keyword']}",
            source=f"agent {SECRETS['Slack Token']}",
        ),
    )
    pipeline.catch_up(store)
    pid = client.get("/api/v1/problems").get_json()["problems"][0]["id"]
    links = [secret_url, "https://user:hunter2@tracker.example.com/INC-8?token=abcdef123456"]
    client.patch(f"/api/v1/problems/{pid}", json={"links": links})
    store.change_problem(int(pid[3:]), parse_change({"state": "resolved"}), "tester")
    send(client, *call(trace(2), at(1), release="1.4.2"))
    pipeline.catch_up(store)
    deliver_due(store, app.config)
    bodies = [body for _, body in receiver.accepted]
    assert [b["type"] for b in bodies] == ["problem.new", "problem.regressed"]
    assert (
        bodies[1]["data"]["links"][1]
        == "https://user:[REDACTED]@tracker.example.com/INC-8?token=[REDACTED]"
    )
    assert not found_anywhere(bodies) & found_anywhere(
        [*links, SECRETS["Secret Keyword"], SECRETS["Slack Token"]]
    )


@pytest.fixture
def app(alerting_app):
    # rules may point at the local receiver
    return alerting_app


QUERY_KEY_URLS = [
    # Google Maps distance matrix, the key as its docs write it
    (
        "https://maps.googleapis.com/maps/api/distancematrix/json?origins=Paris%7CLyon&destinations=Nice&key=AIzaSyFAKE0ab12",
        "https://maps.googleapis.com/maps/api/distancematrix/json?origins=Paris%7CLyon&destinations=Nice&key=[REDACTED]",
    ),
    (
        "https://api.example.com/v1/search?q=shoes&api_key=f00dbabe&page=2",
        "https://api.example.com/v1/search?q=shoes&api_key=[REDACTED]&page=2",
    ),
    (
        "https://graph.example.com/me?fields=id,name&access_token=EAAGm0PX4ZCps",
        "https://graph.example.com/me?fields=id,name&access_token=[REDACTED]",
    ),
    (
        "https://cdn.example.com/img/42.png?w=300&Expires=1767225600&sig=8c1f2e3d",
        "https://cdn.example.com/img/42.png?w=300&Expires=1767225600&sig=[REDACTED]",
    ),
]


@pytest.mark.parametrize("url, stored", QUERY_KEY_URLS)
def test_api_keys_in_a_query_string_are_redacted_before_storage(client, store, url, stored):
    envelope = {
        "trace_id": trace(7),
        "call_id": "call_01",
        "tool": "distance",
        "ts": "2026-11-20T09:00:00Z",
        "snapshot": "request",
        "payload": None,
        "http": {"method": "GET", "url": url},
    }
    envelope["payload"] = {"note": f"fetched {url}"}
    send(client, envelope)
    [row] = store.db.execute(
        "SELECT http, payload FROM events WHERE trace_id = ?", (trace(7),)
    ).fetchall()
    assert orjson.loads(row[0])["url"] == stored
    assert orjson.loads(row[1]) == {"note": f"fetched {stored}"}


def test_key_and_sig_are_secret_only_as_query_parameters():
    redactor = Redactor()
    body = {
        "key": "order_id",
        "sig": "v2",
        "link": "https://api.example.com/a?monkey=1&keys=2&hash_tag=x",
    }
    assert redactor.value(body) == body
    assert redactor.value({"link": "https://api.example.com/a?KEY=abc"}) == {
        "link": "https://api.example.com/a?KEY=[REDACTED]"
    }
