"""The pages: the list, the permalink, page or fragment by HX-Request, escaping."""
from helpers import TRACE, envelope, ndjson, order_call


def ingest(client, *events):
    assert client.post("/api/v1/ingest", data=ndjson(*events)).status_code == 200


def test_the_list_shows_each_trace_with_its_tool_and_snapshots(client):
    ingest(client, *order_call()[:2])
    html = client.get("/").get_data(as_text=True)
    assert TRACE in html and "findOrders" in html
    assert 'title="response missing"' in html


def test_an_htmx_request_gets_only_the_rows_and_the_response_varies_on_it(client):
    ingest(client, *order_call())
    page = client.get("/")
    fragment = client.get("/", headers={"HX-Request": "true"})
    assert "<html" in page.get_data(as_text=True)
    assert "<html" not in fragment.get_data(as_text=True) and TRACE in fragment.get_data(as_text=True)
    assert "HX-Request" in fragment.headers["Vary"]


def test_the_permalink_shows_the_three_snapshots_with_http_metadata(client):
    ingest(client, *order_call())
    html = client.get(f"/traces/{TRACE}").get_data(as_text=True)
    for name in ("arguments", "request", "response"):
        assert name in html
    assert "https://api.example.com/orders/search" in html and "POST" in html
    assert "&#34;limit&#34;: 5" in html or '"limit": 5' in html


def test_payloads_are_escaped_on_the_page(client):
    hostile = {"<script>alert(1)</script>": "<img src=x onerror=alert(1)>"}
    ingest(client, envelope("arguments", hostile))
    html = client.get(f"/traces/{TRACE}").get_data(as_text=True)
    assert "<script>alert(1)" not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_an_unknown_trace_page_is_a_404(client):
    assert client.get("/traces/nope").status_code == 404
