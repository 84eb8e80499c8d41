"""The compare view pairs array items as the engine does.

By id, else by equal value, else in order."""

from webapp.web.render.compare import compare_calls, compare_values


def changed(rows):
    return [(row["ptr"], row["ptr_b"], row["status"]) for row in rows if row["status"] != "same"]


ORDERS = [{"id": "o1", "total": 10}, {"id": "o2", "total": 20}, {"id": "o3", "total": 30}]


def test_an_item_inserted_at_the_front_is_the_only_difference_when_items_have_ids():
    rows = compare_values({"orders": ORDERS}, {"orders": [{"id": "o0", "total": 5}, *ORDERS]})
    assert changed(rows) == [("/orders/0", "/orders/0", "only_b")]
    # o1 sits at /orders/0 in A and /orders/1 in B: the row says both
    assert {
        "ptr": "/orders/0",
        "ptr_b": "/orders/1",
        "status": "same",
        "a": '{"id": "o1", "total": 10}',
        "b": '{"id": "o1", "total": 10}',
    } in rows


def test_a_field_changed_inside_a_moved_item_is_shown_at_both_places():
    bad = [{"id": "o0", "total": 5}, ORDERS[0], {"id": "o2", "total": "20"}, ORDERS[2]]
    assert changed(compare_values(ORDERS, bad)) == [
        ("/0", "/0", "only_b"),
        ("/1/total", "/2/total", "type_changed"),
    ]


def test_items_without_ids_pair_by_equal_value():
    a = [{"sku": None, "q": 1}, {"q": 2}, {"q": 3}]
    b = [{"q": 2}, {"q": 3}]
    assert changed(compare_values(a, b)) == [("/0", "", "only_a")]
    assert changed(compare_values(["x", "y", "z"], ["w", "x", "y", "z"])) == [
        ("/0", "/0", "only_b")
    ]


def test_values_changed_in_place_pair_by_position():
    rows = compare_values([1, 2, 3], ["1", 2, "3"])
    assert changed(rows) == [("/0", "/0", "type_changed"), ("/2", "/2", "type_changed")]
    assert changed(compare_values([{"q": 1}, {"q": 2}], [{"q": 1}, {"q": 5}, {"q": 6}])) == [
        ("/1/q", "/1/q", "value_changed"),
        ("/2", "/2", "only_b"),
    ]


def test_an_item_removed_from_the_middle_keeps_the_rest_aligned():
    rows = compare_values(ORDERS, [ORDERS[0], ORDERS[2]])
    assert changed(rows) == [("/1", "", "only_a")]
    assert [row["ptr"] for row in rows] == ["/0", "/1", "/2"]


def test_the_difference_count_follows_the_pairing():
    call = lambda orders: {
        "snapshots": {
            "arguments": {"payload": {"orders": orders}},
            "request": None,
            "response": None,
        }
    }
    stage = compare_calls(call(ORDERS), call([{"id": "new", "total": 1}, *ORDERS]))[0]
    assert stage["differences"] == 1


def test_two_get_calls_differ_where_their_urls_do(client):
    # a GET sends no body: its arguments travel in the query string and the path, so the request
    # stage compares them there, named as findings name them
    for trace, url in (
        ("c0" * 16, "https://api.example.com/orders?status=paid&limit=5"),
        ("c1" * 16, "https://api.example.com/v2/orders?status=PAID&limit=5"),
    ):
        events = [
            {
                "trace_id": trace,
                "call_id": "call_01",
                "snapshot": "arguments",
                "tool": "searchOrders",
                "payload": {"status": "paid", "limit": 5},
            },
            {
                "trace_id": trace,
                "call_id": "call_01",
                "snapshot": "request",
                "tool": "searchOrders",
                "http": {"method": "GET", "url": url},
            },
        ]
        assert client.post("/api/v1/ingest", json=events).get_json()["accepted"] == 2
    page = client.get(f"/compare?a={'c0' * 16}&b={'c1' * 16}").get_data(as_text=True)
    request = page[page.index('class="compare-stage stage-request"') :]
    request = request[: request.index("</section>")]
    assert "0 differences" not in request
    assert "query:/status" in request and "PAID" in request
    assert "path:/0" in request and "v2" in request
    # the status and the two path segments, index by index; the limit is the same on both sides
    assert "3 differences" in request
