"""The request is method, path, query, headers and body.

The readers of a URL, a form and GraphQL, and the findings of arguments that travel outside the JSON
body (real URLs of real APIs)."""

import pytest

from webapp.analysis import analyze_call
from webapp.analysis.values.names import names_segment
from webapp.analysis.wire.locations import (
    external,
    internal,
    is_request_path,
    read_request,
    split_request_path,
)
from webapp.analysis.wire.request import (
    match_template,
    read_headers,
    read_params,
    read_query,
    variable_segments,
)
from webapp.analysis.wire.values import wire_same


def call(arguments, url, body=None, method="GET", headers=None, contract=None, status=None):
    http = {"method": method, "url": url, "headers": headers or {}}
    return analyze_call(
        {
            "arguments": {"payload": arguments, "http": None},
            "request": {"payload": body, "http": http},
            "response": None,
        },
        contract,
    )


def loud(result):
    return [f for f in result["findings"] if f["severity"] in ("error", "warning")]


def pairs(result):
    return {(row["arguments"], row["request"]) for row in result["alignment"] if row["arguments"]}


# --- the readers ----------------------------------------------------------------------------------


def test_a_query_string_reads_repeated_keys_brackets_and_percent_encoding():
    assert read_query(
        "https://api.github.com/repos/acme/web/issues?state=open&labels=bug,ui&per_page=30"
    ) == {
        "state": "open",
        "labels": "bug,ui",
        "per_page": "30",
    }
    assert read_query("/x?tag=a&tag=b&ids[]=1&ids[]=2&q=caf%C3%A9+au+lait") == {
        "tag": ["a", "b"],
        "ids": ["1", "2"],
        "q": "café au lait",
    }
    assert read_query("/x?a[0]=x&a[1]=y&empty=") == {"a": ["x", "y"], "empty": ""}


def test_a_key_sent_twice_with_one_value_reads_as_that_value_and_names_the_repeat():
    # the layer writes the query, then the HTTP client appends the same params (axios `params`)
    repeats = []
    found = read_params("state=OPEN&size=5&state=OPEN&size=5&tag=a&tag=b&one=1", repeats)
    assert found == {"state": "OPEN", "size": "5", "tag": ["a", "b"], "one": "1"}
    assert sorted(repeats) == ["/size", "/state", "/tag"]
    # a bracketed list is no repeat: `ids[]=1&ids[]=1` is a list of two ones
    repeats = []
    assert read_params("ids[]=1&ids[]=1&a[b]=x~y&a[b]=x~y", repeats) == {
        "ids": ["1", "1"],
        "a": {"b": "x~y"},
    }
    assert repeats == ["/a/b"]
    document = read_request(
        {"http": {"method": "GET", "url": "https://api.example.com/d?s=A&s=A&n=2&n=3"}}, None
    )
    assert document.document["query:"] == {"s": "A", "n": ["2", "3"]}
    assert document.repeated == {"/query:/s", "/query:/n"}


def test_every_argument_sent_twice_alike_is_quiet_and_one_changed_copy_is_loud():
    url = "https://api.paypal.com/v1/customer/disputes?"
    twice = "dispute_state=RESOLVED&page_size=5&dispute_state=RESOLVED&page_size=5"
    arguments = {"dispute_state": "RESOLVED", "page_size": 5}
    assert loud(call(arguments, url + twice)) == []
    assert pairs(call(arguments, url + twice)) == {
        ("/dispute_state", "query:/dispute_state"),
        ("/page_size", "query:/page_size"),
    }
    for changed, kind, copy in (
        (
            "dispute_state=RESOLVED&page_size=5&dispute_state=resolved&page_size=5",
            "enum",
            "resolved",
        ),
        ("dispute_state=RESOLVED&page_size=6&dispute_state=RESOLVED&page_size=5", "value", "6"),
    ):
        [warning] = loud(call(arguments, url + changed))
        assert warning["kind"] == f"{kind}_changed"
        assert warning["right"]["path"].startswith("query:/")
        assert f'one copy "{copy}"' in warning["message"] and "sent 2 times" in warning["message"]
    # a key the layer repeats with other values, none the argument: a list as before, no copy
    other = call({"tag": "a b"}, "https://api.example.com/x?tag=a&tag=b")
    assert not any("copy" in f["message"] for f in other["findings"])


def test_a_redacted_argument_is_not_paired_with_a_query_parameter_of_another_value():
    result = call({"jwt": "[REDACTED]"}, "https://api.example.com/s?x=1")
    assert pairs(result) == {("/jwt", None)}
    assert {(f["kind"], f["severity"]) for f in result["findings"]} == {
        ("dropped", "info"),
        ("added", "info"),
    }
    # a redacted parameter still takes it
    assert pairs(call({"jwt": "[REDACTED]"}, "https://api.example.com/s?key=[REDACTED]")) == {
        ("/jwt", "query:/key")
    }


def test_a_google_maps_query_keeps_the_pipe_joined_list_and_its_redacted_key_as_text():
    url = (
        "https://maps.googleapis.com/maps/api/distancematrix/json?origins=Boston%7CNew+York&destinations=DC"
        "&key=[REDACTED]"
    )
    assert read_query(url) == {
        "origins": "Boston|New York",
        "destinations": "DC",
        "key": "[REDACTED]",
    }


def test_a_stripe_form_body_nests_brackets_into_objects_and_lists():
    body = (
        "amount=2000&currency=usd&metadata[order_id]=6735&items[0][price]=price_1&items[1][price]=price_2"
        "&expand[]=customer"
    )
    assert read_params(body) == {
        "amount": "2000",
        "currency": "usd",
        "metadata": {"order_id": "6735"},
        "items": [{"price": "price_1"}, {"price": "price_2"}],
        "expand": ["customer"],
    }


def test_a_graphql_get_reads_its_variables_as_json():
    url = (
        "https://api.example.com/graphql?query=query%28%24id%3AID%21%29%7Bnode%28id%3A%24id%29%7Bid%7D%7D"
        "&variables=%7B%22id%22%3A%22MDQ6%22%7D"
    )
    assert read_query(url)["variables"] == {"id": "MDQ6"}


def test_a_url_template_names_its_segments_and_refuses_another_path():
    assert match_template("/repos/{owner}/{repo}/issues", "/repos/acme/web%20app/issues") == {
        "owner": "acme",
        "repo": "web app",
    }
    assert match_template("/v1/invoices/{invoiceId}/pay", "/v1/invoices/inv_9f2/pay/") == {
        "invoiceId": "inv_9f2"
    }
    assert match_template("/v1/invoices/{invoiceId}/pay", "/v1/invoices/inv_9f2/void") is None


def test_without_a_template_only_segments_that_may_come_from_arguments_are_read():
    assert variable_segments("/v1/invoices/inv_9f2/pay", set()) == {"2": "inv_9f2"}
    assert variable_segments("/repos/acme/web/issues", {"acme", "web"}) == {"1": "acme", "2": "web"}


def test_only_headers_a_mapping_layer_fills_are_compared_and_secrets_never():
    headers = {
        "Idempotency-Key": "k1",
        "If-Match": 'W/"3"',
        "X-Request-Id": "r-1",
        "Authorization": "Bearer x",
        "X-Api-Key": "[REDACTED]",
        "User-Agent": "sdk/1.0",
        "X-Customer-Id": "c_9",
    }
    assert read_headers(headers) == {
        "idempotency-key": "k1",
        "if-match": 'W/"3"',
        "x-request-id": "r-1",
        "x-customer-id": "c_9",
    }


@pytest.mark.parametrize(
    "path, location, pointer",
    [
        ("query:/page_size", "query", "/page_size"),
        ("path:/invoiceId", "path", "/invoiceId"),
        ("header:/idempotency-key", "header", "/idempotency-key"),
        ("form:/metadata/order_id", "form", "/metadata/order_id"),
        ("/paid_at", "body", "/paid_at"),
        ("", "body", ""),
        ("/query:/x", "body", "/query:/x"),
    ],
)
def test_a_request_path_is_a_location_and_a_pointer_and_a_body_path_stays_a_pointer(
    path, location, pointer
):
    assert split_request_path(path) == (location, pointer)
    assert is_request_path(path)
    if location != "body":
        assert external(internal(path)) == path
    else:
        # a body path is never rewritten, whatever its keys
        assert internal(path) == path


def test_a_request_without_a_url_reads_as_its_body_alone():
    wire = read_request({"payload": {"a": 1}, "http": None}, {"a": 1})
    assert wire.document == {"a": 1} and not wire.located


@pytest.mark.parametrize(
    "value, sent, ok",
    [
        (5, "5", True),
        (5, "6", False),
        (2.5, "2.5", True),
        (True, "true", True),
        ("a", "a", True),
        (["a", "b"], "a,b", True),
        (["a", "b"], "a|b", True),
        (["a", "b"], "a;b", False),
        ("x", ["x"], True),
        (["a", "b"], ["a", "b"], True),
        ("2026-03-01", "2026-03-01T00:00:00Z", True),
        ("2026-03-01", "2026-03-02", False),
        (None, "", True),
        # Arabic-Indic five: float() reads it, no server does
        (5, "\u0665", False),
        # fullwidth five
        (5, "\uff15", False),
        (2026, "\u0662\u0660\u0662\u0666", False),
        # a structure carried as its JSON text
        (["https://x.example/a.png"], '["https://x.example/a.png"]', True),
        ({"a": 1}, '{"a": 1}', True),
        (["a", "b"], '["a"]', False),
        (["a"], "[a", False),
    ],
)
def test_a_value_is_its_text_on_the_wire(value, sent, ok):
    assert wire_same(value, sent) is ok


def test_true_sent_as_1_is_the_same_only_where_no_schema_says_boolean():
    assert wire_same(True, "1")
    assert not wire_same(True, "1", {"type": "boolean"})


# --- the seed examples ----------------------------------------------------------------------------

INVOICE = {"invoiceId": "inv_9f2", "paidAt": "2026-03-01T10:00:00Z"}


def test_mark_invoice_paid_with_its_id_in_the_path_is_quiet():
    result = call(
        INVOICE,
        "https://api.example.com/v1/invoices/inv_9f2/pay",
        {"paid_at": "2026-03-01T10:00:00Z"},
        "POST",
    )
    assert loud(result) == []
    assert ("/invoiceId", "path:/2") in pairs(result) and ("/paidAt", "/paid_at") in pairs(result)


def test_mark_invoice_paid_is_loud_when_the_path_carries_another_id():
    result = call(
        INVOICE,
        "https://api.example.com/v1/invoices/inv_7aa/pay",
        {"paid_at": "2026-03-01T10:00:00Z"},
        "POST",
    )
    [finding] = loud(result)
    assert finding["kind"] == "value_changed" and finding["left"]["path"] == "/invoiceId"
    assert finding["right"] == {"snapshot": "request", "path": "path:/2"}


def test_with_a_template_the_path_parameter_is_named_by_it():
    contract = {"http": {"method": "POST", "path": "/v1/invoices/{invoiceId}/pay"}}
    good = call(
        INVOICE,
        "https://api.example.com/v1/invoices/inv_9f2/pay",
        {"paid_at": INVOICE["paidAt"]},
        "POST",
        contract=contract,
    )
    assert loud(good) == [] and ("/invoiceId", "path:/invoiceId") in pairs(good)
    assert good["request_template"] == "/v1/invoices/{invoiceId}/pay"
    bad = call(
        INVOICE,
        "https://api.example.com/v1/invoices/inv_000/pay",
        {"paid_at": INVOICE["paidAt"]},
        "POST",
        contract=contract,
    )
    [finding] = loud(bad)
    assert (finding["kind"], finding["right"]["path"]) == ("value_changed", "path:/invoiceId")


ORDERS = {"email": "ann@example.com", "status": "paid", "limit": 5}


def test_find_orders_as_a_get_with_its_query_is_quiet_and_aligned():
    result = call(
        ORDERS,
        "https://api.example.com/orders?customer_email=ann%40example.com&status=paid&page_size=5",
    )
    assert loud(result) == []
    assert pairs(result) == {
        ("/email", "query:/customer_email"),
        ("/status", "query:/status"),
        ("/limit", "query:/page_size"),
    }


def test_find_orders_with_status_dropped_from_the_query_is_loud_where_the_contract_maps_it():
    url = "https://api.example.com/orders?customer_email=ann%40example.com&page_size=5"
    mapping = [{"arguments": "/status", "request": "query:/status"}]
    [finding] = loud(call(ORDERS, url, contract={"mapping": mapping}))
    assert (finding["kind"], finding["left"]["path"]) == ("dropped", "/status")
    assert "the contract maps it to query:/status" in finding["message"]
    # one call alone cannot tell a status the layer filters by itself from one it lost
    assert loud(call(ORDERS, url)) == []


@pytest.mark.parametrize("body", [None, ""])
def test_a_get_logged_with_no_or_an_empty_body_is_not_flagged_at_the_root(body):
    assert (
        loud(
            call(
                ORDERS,
                "https://api.example.com/orders?customer_email=ann%40example.com&status=paid&page_size=5",
                body,
            )
        )
        == []
    )


def test_a_query_value_that_differs_is_loud_at_its_parameter():
    result = call(
        ORDERS,
        "https://api.example.com/orders?customer_email=ann%40example.com&status=paid&page_size=6",
    )
    [finding] = loud(result)
    assert finding["kind"] == "value_changed"
    assert (finding["left"]["path"], finding["right"]["path"]) == ("/limit", "query:/page_size")


def test_true_sent_as_1_is_loud_where_the_parameter_schema_says_boolean():
    contract = {
        "http": {"parameters": [{"name": "archived", "in": "query", "schema": {"type": "boolean"}}]}
    }
    result = call(
        {"archived": True}, "https://api.example.com/boards?archived=1", contract=contract
    )
    [finding] = loud(result)
    assert finding["kind"] == "type_changed" and finding["right"]["path"] == "query:/archived"
    assert (
        loud(
            call(
                {"archived": True},
                "https://api.example.com/boards?archived=true",
                contract=contract,
            )
        )
        == []
    )


def test_github_owner_and_repo_travel_in_the_path():
    args = {"owner": "acme", "repo": "web", "title": "Crash on save", "body": "Steps..."}
    good = call(
        args,
        "https://api.github.com/repos/acme/web/issues",
        {"title": args["title"], "body": args["body"]},
        "POST",
    )
    assert loud(good) == []
    bad = call(
        args,
        "https://api.github.com/repos/acme/api/issues",
        {"title": args["title"], "body": args["body"]},
        "POST",
    )
    # a path segment the URL template does not name: one call cannot tell whose it is
    assert loud(bad) == []
    templated = call(
        args,
        "https://api.github.com/repos/acme/api/issues",
        {"title": args["title"], "body": args["body"]},
        "POST",
        contract={"http": {"path": "/repos/{owner}/{repo}/issues"}},
    )
    assert [(f["kind"], f["left"]["path"]) for f in loud(templated)] == [("value_changed", "/repo")]


def test_google_maps_lists_joined_with_the_apis_pipe_are_quiet_and_a_semicolon_is_loud():
    args = {"origins": ["Boston", "New York"], "destinations": ["DC"]}
    good = call(
        args,
        "https://maps.googleapis.com/maps/api/distancematrix/json?origins=Boston%7CNew+York"
        "&destinations=DC&key=[REDACTED]",
    )
    assert loud(good) == []
    assert ("/origins", "query:/origins") in pairs(good)
    bad = call(
        args,
        "https://maps.googleapis.com/maps/api/distancematrix/json?origins=Boston;New+York"
        "&destinations=DC&key=[REDACTED]",
    )
    assert [f["left"]["path"] for f in loud(bad)] == ["/origins"]


def test_a_contract_style_decides_the_separator():
    contract = {
        "http": {"parameters": [{"name": "ids", "in": "query", "style": "form", "explode": False}]}
    }
    assert (
        loud(call({"ids": ["a", "b"]}, "https://x.example/items?ids=a,b", contract=contract)) == []
    )
    assert loud(call({"ids": ["a", "b"]}, "https://x.example/items?ids=a|b", contract=contract))


def test_two_arguments_joined_into_one_parameter_are_quiet():
    result = call(
        {"latitude": 40.714, "longitude": -73.961},
        "https://maps.googleapis.com/maps/api/geocode/json?latlng=40.714,-73.961&key=[REDACTED]",
    )
    assert loud(result) == []
    assert {("/latitude", "query:/latlng"), ("/longitude", "query:/latlng")} <= pairs(result)


def test_a_stripe_form_body_aligns_with_its_fields_and_a_changed_field_is_loud():
    args = {"amount": 2000, "currency": "usd", "order_id": "6735"}
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    good = call(
        args,
        "https://api.stripe.com/v1/payment_intents",
        "amount=2000&currency=usd&metadata[order_id]=6735",
        "POST",
        headers,
    )
    assert loud(good) == []
    assert pairs(good) == {
        ("/amount", "form:/amount"),
        ("/currency", "form:/currency"),
        ("/order_id", "form:/metadata/order_id"),
    }
    bad = call(
        args,
        "https://api.stripe.com/v1/payment_intents",
        "amount=200&currency=usd&metadata[order_id]=6735",
        "POST",
        headers,
    )
    [finding] = loud(bad)
    assert (finding["kind"], finding["right"]["path"]) == ("scaled", "form:/amount")


def test_a_list_sent_as_its_json_text_in_a_form_is_quiet_and_another_list_is_loud():
    args = {"To": "+14155550117", "MediaUrl": ["https://x.example/owl.png"]}
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    url = "https://api.example.com/v1/messages"
    good = "To=%2B14155550117&MediaUrl=%5B%22https%3A%2F%2Fx.example%2Fowl.png%22%5D"
    assert loud(call(args, url, good, "POST", headers)) == []
    bad = "To=%2B14155550117&MediaUrl=%5B%22https%3A%2F%2Fx.example%2Fcat.png%22%5D"
    [finding] = loud(call(args, url, bad, "POST", headers))
    assert finding["right"]["path"] == "form:/MediaUrl"


def test_an_idempotency_key_is_compared_in_its_header_and_other_headers_stay_quiet():
    args = {"idempotency_key": "ik-123", "amount": 5}
    headers = {"Idempotency-Key": "ik-123", "Authorization": "[REDACTED]", "X-Request-Id": "req-1"}
    assert loud(call(args, "https://x.example/charges", {"amount": 5}, "POST", headers)) == []
    [finding] = loud(
        call(
            args, "https://x.example/charges", {"amount": 5}, "POST", {"Idempotency-Key": "ik-999"}
        )
    )
    assert finding["right"]["path"] == "header:/idempotency-key"


def test_a_dropped_argument_is_dropped_not_paired_by_elimination_with_a_request_id_header():
    # sample_traces/13: the builder never copies `priority`; the client's own X-Request-Id is the
    # only other string left, which says nothing about where `priority` went
    args = {"title": "Plan", "priority": "high"}
    headers = {"content-type": "application/json", "x-request-id": "req_01JE7XPR"}
    result = call(args, "https://tasks.example.com/v1/tasks", {"title": "Plan"}, "POST", headers)
    assert loud(result) == []
    [finding] = result["findings"]
    assert (finding["kind"], finding["left"]["path"], finding["right"]) == (
        "dropped",
        "/priority",
        None,
    )


def test_a_graphql_post_pairs_arguments_with_its_variables_and_its_query_text_is_no_added_field():
    args = {"owner": "acme", "name": "web"}
    body = {
        "query": "query($owner: String!, $name: String!) { repository(owner: $owner, name: $name) "
        "{ id } }",
        "variables": {"owner": "acme", "name": "web"},
    }
    result = call(args, "https://api.github.com/graphql", body, "POST")
    assert loud(result) == [] and [f for f in result["findings"] if f["kind"] == "added"] == []
    assert pairs(result) == {("/owner", "/variables/owner"), ("/name", "/variables/name")}
    body["variables"]["name"] = "api"
    assert [
        f["right"]["path"] for f in loud(call(args, "https://api.github.com/graphql", body, "POST"))
    ] == ["/variables/name"]


@pytest.mark.parametrize(
    "declared, loud_kinds", [("ID!", []), ("[ID!]", []), ("Int", ["type_changed"])]
)
def test_a_number_sent_as_text_to_a_graphql_variable_is_judged_by_its_declared_type(
    declared, loud_kinds
):
    # monday.com's layer sends an item id the model gave as a number as the ID its operation
    # declares: the spec serialises an ID as text; an Int sent as text is still a type change
    args = {"itemId": 9876543210, "body": "Shipped"}
    body = {
        "query": f"mutation ($itemId: {declared}, $body: String!) {{ create_update(item_id: "
        "$itemId, body: $body) { id } }",
        "variables": {"itemId": "9876543210", "body": "Shipped"},
    }
    result = call(args, "https://api.monday.com/v2", body, "POST")
    assert [f["kind"] for f in loud(result)] == loud_kinds
    [change] = [f for f in result["findings"] if f["kind"] == "type_changed"]
    assert change["right"]["path"] == "/variables/itemId"
    assert ("travels as text" in change["message"]) == (not loud_kinds)
    # the same id changed is loud whatever the declaration
    body["variables"]["itemId"] = "9876543211"
    assert [
        f["right"]["path"] for f in loud(call(args, "https://api.monday.com/v2", body, "POST"))
    ] == ["/variables/itemId"]


def test_an_argument_named_query_is_never_paired_with_the_graphql_document():
    # Linear's search tool: `query` becomes a `filter.or` of `contains`, the body's `query` is the
    # operation
    args = {"query": "pricing", "limit": 5}
    body = {
        "query": "query issues($filter: IssueFilter, $first: Int) { issues(filter: $filter, first: "
        "$first) { id } }",
        "variables": {"filter": {"or": [{"title": {"contains": "pricing"}}]}, "first": 5},
    }
    result = call(args, "https://api.linear.app/graphql", body, "POST")
    assert loud(result) == []
    assert ("/query", "/query") not in pairs(result)


def test_an_index_is_no_name_a_list_item_and_an_unnamed_url_segment_share():
    # `fields[1]` and the URL's second segment are both "1": the owner fills the segment, `fields`
    # is consumed
    args = {"owner": "astral-sh", "repo": "uv", "fields": ["author", "commit"]}
    result = call(args, "https://api.github.com/repos/astral-sh/uv/commits")
    assert {("/owner", "path:/1"), ("/repo", "path:/2")} <= pairs(result)
    assert loud(result) == []
    [fields] = [f for f in result["findings"] if f["kind"] == "dropped"]
    assert fields["left"]["path"] == "/fields" and "would settle it" in fields["message"]


def test_shapes_a_layer_makes_on_purpose_in_a_json_body_are_quiet():
    assert (
        loud(
            call(
                {"state": "CLOSED"},
                "https://api.github.com/graphql",
                {"states": ["CLOSED"]},
                "POST",
            )
        )
        == []
    )
    assert (
        loud(
            call(
                {"due": "2026-03-01"},
                "https://x.example/tasks",
                {"due": "2026-03-01T00:00:00Z"},
                "POST",
            )
        )
        == []
    )
    assert loud(
        call(
            {"due": "2026-03-01"},
            "https://x.example/tasks",
            {"due": "2026-03-01T09:00:00Z"},
            "POST",
        )
    )


def test_body_findings_keep_their_paths_when_the_url_is_read():
    result = call(
        {"limit": 5, "orderId": "ord_12345"},
        "https://x.example/orders/ord_12345",
        {"limit": "5"},
        "POST",
    )
    [finding] = loud(result)
    assert (finding["kind"], finding["left"]["path"], finding["right"]["path"]) == (
        "type_changed",
        "/limit",
        "/limit",
    )


def test_a_finding_outside_the_body_has_a_stable_anchor_and_body_anchors_are_unchanged():
    from webapp.reports.anchors import finding_anchors

    result = call(
        ORDERS,
        "https://api.example.com/orders?customer_email=ann%40example.com&status=paid&page_size=6",
    )
    [finding] = loud(result)
    assert finding_anchors([finding]) == [
        "f-value_changed-arguments/limit-request/query_3a_/page_size"
    ]
    body = {
        "kind": "type_changed",
        "left": {"snapshot": "arguments", "path": "/limit"},
        "right": {"snapshot": "request", "path": "/limit"},
    }
    assert finding_anchors([body]) == ["f-type_changed-arguments/limit-request/limit"]


@pytest.mark.parametrize(
    "url",
    [
        "https://[REDACTED]@api.example.com/orders?status=paid",
        "https://[::1/x?a=1",
        "http://a:b:c/%zz?%%=1&=&&x",
        "//",
        "?",
        "not a url at all",
    ],
)
def test_a_url_that_cannot_be_read_is_no_crash(url):
    result = call(ORDERS, url)
    assert result["worst"] in ("warning", "info", "error") and "incomplete" not in result


from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30)


@given(
    path=st.lists(_TEXT, max_size=5),
    query=st.lists(st.tuples(_TEXT, _TEXT), max_size=6),
    form=_TEXT,
    arguments=st.dictionaries(
        _TEXT,
        st.one_of(_TEXT, st.integers(), st.booleans(), st.lists(_TEXT, max_size=3)),
        max_size=5,
    ),
)
def test_any_url_query_and_form_text_is_read_without_a_crash(path, query, form, arguments):
    from urllib.parse import quote, urlencode

    url = (
        "https://api.example.com/"
        + "/".join(quote(p, safe="") for p in path)
        + "?"
        + urlencode(query)
    )
    result = call(
        arguments, url, form, "POST", {"Content-Type": "application/x-www-form-urlencoded"}
    )
    assert "incomplete" not in result
    for f in result["findings"]:
        for end in (f["left"], f["right"]):
            assert end is None or is_request_path(end["path"])


@pytest.mark.parametrize(
    "arguments, url, body, headers",
    [
        (
            {"owner": "acme", "repo": "web", "title": "Crash", "labels": ["bug"]},
            "https://api.github.com/repos/acme/web/issues",
            {"title": "Crash", "labels": ["bug"]},
            {},
        ),
        (
            ORDERS,
            "https://api.example.com/orders?customer_email=ann%40example.com&page_size=5",
            None,
            {},
        ),
        (
            {"amount": 2000, "order_id": "6735"},
            "https://api.stripe.com/v1/payment_intents",
            "amount=2000&metadata[order_id]=6735",
            {"Content-Type": "application/x-www-form-urlencoded"},
        ),
        (
            {"key": "ik-1", "n": 2},
            "https://x.example/items/it_42?n=3",
            {"n": 2},
            {"Idempotency-Key": "ik-1"},
        ),
    ],
)
def test_a_located_calls_sparse_rows_rebuild_its_full_alignment(arguments, url, body, headers):
    from webapp.analysis import full_alignment

    snapshots = {
        "arguments": {"payload": arguments},
        "request": {"payload": body, "http": {"method": "POST", "url": url, "headers": headers}},
        "response": {"payload": {"ok": True, "title": "Crash"}, "http": {"status_code": 200}},
    }
    sparse, full = analyze_call(snapshots, None), analyze_call(snapshots, None, sparse=False)
    assert sparse["alignment_sparse"] is True and sparse["located"] is True
    assert len(sparse["alignment"]) < len(full["alignment"]) or body is None
    assert full_alignment(snapshots, sparse)[0] == full["alignment"]


def test_a_query_string_no_argument_reaches_is_added_field_by_field_not_as_a_whole():
    result = call(
        {"q": "x"}, "https://api.example.com/search?archived=1&x=2", body={"q": "x"}, method="POST"
    )
    added = sorted(f["right"]["path"] for f in result["findings"] if f["kind"] == "added")
    assert added == ["query:/archived", "query:/x"] and loud(result) == []


def test_an_arguments_name_sent_as_an_id_is_still_paired_by_elimination():
    # a look-up (Google Calendar: a calendar's name sent as its id): the argument is the words,
    # the layer's side the id; only a text the layer composes is never an id's partner
    url = "https://www.googleapis.com/calendar/v3/calendars/c_8f2k1m9q%40group.calendar.google.com"
    result = call(
        {"calendarId": "Team Offsite", "eventId": "javmav902elf"}, url + "/events/javmav902elf"
    )
    assert ("/calendarId", "path:/3") in pairs(result)


# --- a URL segment named by the collection before it ----------------------------------------------


def test_an_argument_pairs_with_the_segment_after_the_collection_its_name_names():
    # `/calendars/{calendarId}`: the calendar's name was looked up into its id, so no value ties
    # them, and `sendUpdates` is the only other text left
    args = {"calendarId": "Team Offsite", "eventId": "4r1bq2", "sendUpdates": "all"}
    url = (
        "https://www.googleapis.com/calendar/v3/calendars/c_8f2k1m9q%40group.calendar.google.com"
        "/events/4r1bq2?sendUpdates=all"
    )
    result = call(args, url, method="DELETE")
    assert {("/calendarId", "path:/3"), ("/eventId", "path:/5")} <= pairs(result)
    # without the other argument it is no `dropped` either
    del args["sendUpdates"]
    assert ("/calendarId", "path:/3") in pairs(call(args, url, method="DELETE"))


@pytest.mark.parametrize(
    "key, collection, named",
    [
        ("calendarId", "calendars", True),
        ("organizationSlug", "organizations", True),
        ("issue_id", "issues", True),
        ("fileKey", "files", True),
        ("calendarId", "events", False),
        ("id", "items", False),
        ("repo", "repos", False),
    ],
)
def test_which_keys_name_the_segment_after_a_collection(key, collection, named):
    assert names_segment(key, collection) is named


@pytest.mark.parametrize("owner", ["acme", "web"])
def test_a_key_that_says_no_handle_names_no_segment(owner):
    # GitHub's `/repos/{owner}/{repo}`: the segment after `repos` is the owner's, even where the
    # owner and the repository share a name
    args = {"owner": owner, "repo": "web", "title": "Crash on save"}
    url = f"https://api.github.com/repos/{owner}/api7/issues"
    result = call(args, url, {"title": "Crash on save"})
    assert {("/owner", "path:/1"), ("/repo", "path:/2")} <= pairs(result)
    assert [f["left"]["path"] for f in loud(result)] == ["/repo"]
