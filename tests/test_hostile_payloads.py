"""Hostile payloads go through the API and come back on the pages as inert.

Escaped text."""

from html.parser import HTMLParser

import pytest
from helpers import ndjson

SCRIPT = "<script>alert('xss')</script>"
IMG = '<img src=x onerror="alert(1)">'
CLOSE = "</script><script>alert(2)</script>"
ATTR = '" onmouseover="alert(3)" x="'
BIDI = "invoice\u202eFDP.exe\u2066\u2069\u200f"
BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
HOSTILE_TRACE = "hostile0000000000000000000000001"


def hostile_events(big: str = "") -> list[dict]:
    payload = {
        "title": SCRIPT,
        "image": IMG,
        "close": CLOSE,
        "attribute": ATTR,
        "bidi": BIDI,
        SCRIPT: "key holding a script tag",
        CLOSE: {IMG: [ATTR]},
        "{{ 7*7 }}": "{% raw %}",
        "javascript": "javascript:alert(4)",
    }
    if big:
        payload["big"] = big
    common = {
        "trace_id": HOSTILE_TRACE,
        "call_id": f"call{SCRIPT}",
        "tool": f"tool{IMG}",
        "source": CLOSE,
    }
    return [
        {**common, "snapshot": "arguments", "payload": payload},
        {
            **common,
            "snapshot": "request",
            "payload": {**payload, "title": 5},
            "http": {
                "method": "POST",
                "url": f"https://api.example.com/{SCRIPT}",
                "headers": {CLOSE: IMG},
            },
        },
        {
            **common,
            "snapshot": "response",
            "payload": {"error": {"message": CLOSE, "code": IMG}},
            "http": {"status_code": 500},
        },
    ]


class TagCollector(HTMLParser):
    """Collect every element and attribute a browser would build from the HTML."""

    def __init__(self):
        super().__init__()
        self.tags, self.handlers, self.scripts = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.handlers += [(tag, name, value) for name, value in attrs if name.startswith("on")]
        if tag == "script":
            self.scripts.append(dict(attrs))


def audit(html: str) -> TagCollector:
    collector = TagCollector()
    collector.feed(html)
    collector.close()
    return collector


def assert_inert(html: str):
    found = audit(html)
    assert found.handlers == []
    assert "img" not in found.tags
    for script in found.scripts:
        assert (script.get("src") or "").startswith("/static/") or script.get(
            "type"
        ) == "application/json"
    for raw in (SCRIPT, IMG, "<script>alert(2)", 'onmouseover="alert(3)"'):
        assert raw not in html


@pytest.fixture
def hostile_client(client):
    response = client.post("/api/v1/ingest", data=ndjson(*hostile_events()))
    assert response.status_code == 200 and response.get_json()["accepted"] == 3
    return client


def test_the_trace_page_renders_scripts_and_handlers_as_text(hostile_client):
    response = hostile_client.get(f"/traces/{HOSTILE_TRACE}")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert_inert(html)
    assert "&lt;script&gt;alert(" in html
    # shown, as text
    assert "onerror=" in html.replace("&#34;", '"').replace("&quot;", '"')


def test_the_trace_list_renders_hostile_tools_and_sources_as_text(hostile_client):
    for path in ("/", "/?q=%3Cscript%3E", f"/?tool={IMG}"):
        response = hostile_client.get(path)
        assert response.status_code == 200
        assert_inert(response.get_data(as_text=True))


def test_the_htmx_fragment_of_the_list_is_inert_too(hostile_client):
    response = hostile_client.get("/", headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert_inert(response.get_data(as_text=True))


def test_the_api_serves_hostile_values_as_json_never_as_html(hostile_client):
    response = hostile_client.get(f"/api/v1/traces/{HOSTILE_TRACE}")
    assert response.mimetype == "application/json"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    arguments = response.get_json()["calls"][0]["snapshots"]["arguments"]["payload"]
    assert arguments["title"] == SCRIPT and arguments[CLOSE] == {IMG: [ATTR]}


def test_bidi_controls_are_shown_not_obeyed_on_the_page(hostile_client):
    html = hostile_client.get(f"/traces/{HOSTILE_TRACE}").get_data(as_text=True)
    assert not any(char in html for char in BIDI_CONTROLS), (
        "raw bidi controls reorder the text around them (Trojan Source); show them escaped"
    )
    assert "FDP.exe" in html


def test_a_one_megabyte_string_is_stored_whole_and_rendered_escaped(client):
    big = ("<marquee>" + "x" * 1000 + "</marquee>") * 1000
    assert client.post("/api/v1/ingest", data=ndjson(*hostile_events(big))).status_code == 200
    stored = client.get(f"/api/v1/traces/{HOSTILE_TRACE}").get_json()
    assert stored["calls"][0]["snapshots"]["arguments"]["payload"]["big"] == big
    response = client.get(f"/traces/{HOSTILE_TRACE}")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "<marquee>" not in html and "&lt;marquee&gt;xxxx" in html
    assert_inert(html)
