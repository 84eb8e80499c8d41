"""Redaction before storage.

Secrets under known keys and secret-looking values become a marker."""

import copy
import json
import re

import pytest
from helpers import TRACE, envelope, ndjson, quick_and_thorough
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp import create_app
from webapp.analysis import analyze_call
from webapp.ingest.model import Event
from webapp.redaction.cards import looks_like_card, luhn_ok
from webapp.redaction.redactor import REDACTED, Redactor

JWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"


@pytest.fixture
def redactor():
    return Redactor()


@pytest.mark.parametrize(
    "key",
    [
        "apiKey",
        "API-KEY",
        "api_key",
        "x-api-key",
        "X-Api-Key",
        "Authorization",
        "password",
        "Passwd",
        "client_secret",
        "clientSecret",
        "token",
        "access_token",
        "refreshToken",
        "id_token",
        "cookie",
        "Set-Cookie",
        "private_key",
        "credentials",
        "session",
        "db_password",
        "github_token",
        "X-Auth-Token",
        "webhookSecret",
        "Proxy-Authorization",
    ],
)
def test_values_under_secret_keys_are_redacted_whatever_the_case_and_separators(redactor, key):
    assert redactor.value({key: "hunter2", "other": "kept"}) == {key: REDACTED, "other": "kept"}


@pytest.mark.parametrize(
    "key",
    [
        "max_tokens",
        "maxTokens",
        "tokens_used",
        "token_count",
        "prompt_tokens",
        "total_tokens",
        "max_completion_tokens",
        "next_page_token",
        "pageToken",
        "stop_token",
        "tokenizer",
        "token_type",
        "primary_key",
        "idempotency_key",
        "keywords",
        "session_count",
        "author",
    ],
)
def test_counters_cursors_and_ordinary_keys_are_not_redacted(redactor, key):
    assert redactor.value({key: "value-123"}) == {key: "value-123"}


def test_a_secret_key_redacts_a_whole_object_or_list(redactor):
    payload = {"credentials": {"user": "ann", "pass": "x"}, "cookie": ["a=1", "b=2"]}
    assert redactor.value(payload) == {"credentials": REDACTED, "cookie": REDACTED}


def test_null_false_and_empty_secrets_stay_visible(redactor):
    payload = {"token": None, "password": "", "secret": False, "api_key": {}}
    assert redactor.value(payload) == payload


@pytest.mark.parametrize(
    "secret",
    [
        "Bearer abc",
        "bearer eyJraWQiOiJ4In0",
        "Basic dXNlcjpwYXNzd29yZA==",
        JWT,
        "sk-proj-4bf92f3577b34da6a3ce929d",
        "sk-ant-api03-AbC123dEf456GhI789jKl",
        "ghp_" + "a1B2c3D4e5" * 4,
        "xoxb-123456789012-abcdefghij",
        "AKIAIOSFODNN7EXAMPLE",
        "4111 1111 1111 1111",
        "5555-5555-5555-4444",
        "378282246310005",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----",
    ],
)
def test_secret_looking_values_are_redacted_under_any_key(redactor, secret):
    assert redactor.value({"note": secret}) == {"note": REDACTED}


def test_a_card_number_sent_as_a_json_number_is_redacted(redactor):
    assert redactor.value({"n": 4111111111111111}) == {"n": REDACTED}


@pytest.mark.parametrize(
    "ordinary",
    [
        # fails Luhn
        "1234567890123456",
        # a Visa prefix, but fails Luhn
        "4111111111111112",
        # an ISBN-13: no card issuer starts with 9
        "9780306406157",
        # 20 digits: an id, not a card
        "41111111111111111111",
        # digits inside a version string
        "v1.4111111111111111",
        # contains "sk-" inside a word
        "risk-assessment-for-customer-accounts-2024",
        "2026-08-20T09:00:00Z",
        "Bearer",
        "a basic information request for the order",
    ],
)
def test_ordinary_values_are_kept(redactor, ordinary):
    assert redactor.value({"note": ordinary}) == {"note": ordinary}


def test_timestamps_and_ids_as_numbers_are_kept(redactor):
    payload = {"ts_ms": 1724140800000, "order_id": 1234567890123456, "amount": 4111.11}
    assert redactor.value(payload) == payload


def test_a_secret_inside_text_is_cut_out_and_the_text_kept(redactor):
    text = "charge card 4111-1111-1111-1111 with key sk-abc123def456ghi789jkl0 today"
    assert redactor.value(text) == f"charge card {REDACTED} with key {REDACTED} today"


def test_secret_query_parameters_and_form_fields_are_redacted(redactor):
    assert redactor.value("https://api.example.com/o?access_token=abc&page=2") == (
        f"https://api.example.com/o?access_token={REDACTED}&page=2"
    )
    assert redactor.value("grant_type=client_credentials&client_secret=s3cr3t") == (
        f"grant_type=client_credentials&client_secret={REDACTED}"
    )


def test_extra_keys_are_added_to_the_built_in_list():
    redactor = Redactor(["tenant-pin", "SSN"])
    payload = {"tenantPin": "1234", "ssn": "078-05-1120", "password": "x", "name": "ann"}
    assert redactor.value(payload) == {
        "tenantPin": REDACTED,
        "ssn": REDACTED,
        "password": REDACTED,
        "name": "ann",
    }


def test_the_input_value_is_left_unchanged(redactor):
    payload = {"a": [{"password": "x"}], "b": {"token": "y"}}
    before = copy.deepcopy(payload)
    redactor.value(payload)
    assert payload == before


def test_nesting_far_deeper_than_the_recursion_limit_is_handled(redactor):
    deep = leaf = {}
    for _ in range(5000):
        leaf["child"] = {}
        leaf = leaf["child"]
    leaf["password"] = "x"
    result = redactor.value(deep)
    for _ in range(5000):
        result = result["child"]
    assert result == {"password": REDACTED}


def test_an_event_has_its_payload_headers_url_and_meta_redacted(redactor):
    event = Event(
        event_id="e1",
        trace_id="t1",
        call_id="c1",
        snapshot="request",
        payload={"query": "paid", "api_key": "k"},
        http={
            "method": "POST",
            "url": "https://x.example/?token=abc",
            "headers": {"Authorization": "Bearer abcdef", "Accept": "application/json"},
        },
        meta={"cookie": "sid=1"},
    )
    result = redactor.event(event)
    assert result.payload == {"query": "paid", "api_key": REDACTED}
    assert result.http["headers"] == {"Authorization": REDACTED, "Accept": "application/json"}
    assert result.http["url"] == f"https://x.example/?token={REDACTED}"
    assert result.meta == {"cookie": REDACTED}
    assert (result.event_id, result.trace_id, result.snapshot) == ("e1", "t1", "request")


def test_broken_json_text_of_a_rejected_record_is_redacted(redactor):
    cut = '{"trace_id": "t", "payload": {"password": "hunter2", "q": "Bearer abcdefghijklmnop12'
    assert "hunter2" not in redactor.text(cut)
    assert "abcdefghijklmnop12" not in redactor.text(cut)
    assert '"trace_id": "t"' in redactor.text(cut)


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"a":1,"password":"x1","b":"y"}', '{"a":1,"password":"[REDACTED]","b":"y"}'),
        ('{"token" : "abc", "n": 2}', '{"token" : "[REDACTED]", "n": 2}'),
        ('{"cvv": 123, "q": 1}', '{"cvv": "[REDACTED]", "q": 1}'),
        (
            '{"credentials": {"user": "ann", "pass": "}"}, "q": 1}',
            '{"credentials": "[REDACTED]", "q": 1}',
        ),
        ('{"q": "x", "api_key": ["a", "b', '{"q": "x", "api_key": "[REDACTED]"'),
        ('{"q": "x", "password": "hun', '{"q": "x", "password": "[REDACTED]"'),
        (
            '{"log":"{\\"password\\":\\"p1\\",\\"q\\":1}"}',
            '{"log":"{\\"password\\":\\"[REDACTED]\\",\\"q\\":1}"}',
        ),
        (
            '{"log":"{\\"q\\":1,\\"token\\":\\"cut',
            '{"log":"{\\"q\\":1,\\"token\\":\\"[REDACTED]\\"',
        ),
        ('{"pass\\u0077ord": "x1"}', '{"pass\\u0077ord": "[REDACTED]"}'),
    ],
)
def test_secret_pairs_in_json_text_held_by_a_string_are_redacted_and_the_rest_kept(
    redactor, text, expected
):
    assert redactor.value(text) == expected
    assert redactor.value({"note": text}) == {"note": expected}


def test_json_text_without_secrets_is_kept_as_written(redactor):
    text = (
        '{"token": null, "password": "", "secret": {}, "max_tokens": 5, "note": "a \\"token\\": '
        'word"}'
    )
    assert redactor.value(text) == text
    assert redactor.value({"original": text}) == {"original": text}


def test_json_text_in_logstash_event_original_is_stored_without_its_secrets(client):
    original = json.dumps(
        {"trace_id": "t", "payload": {"password": "LSPASS-123", "q": "paid"}}, separators=(",", ":")
    )
    event = {
        **envelope("request", {"q": "paid"}),
        "@timestamp": "2026-11-20T09:00:00Z",
        "event": {"original": original},
    }
    assert client.post("/api/v1/ingest", data=ndjson(event)).get_json()["accepted"] == 1
    page = client.get(f"/traces/{TRACE}.json").get_data(as_text=True)
    meta = client.get(f"/api/v1/traces/{TRACE}").get_json()["calls"][0]["snapshots"]["request"][
        "meta"
    ]
    assert "LSPASS-123" not in page and "LSPASS-123" not in json.dumps(meta)
    assert meta["event"]["original"] == original.replace('"LSPASS-123"', f'"{REDACTED}"')


def test_a_payload_of_broken_json_text_is_stored_without_its_secrets(client):
    broken = '{"password":"BROKENPASS-1","token":"BROKENTOK-2","q":"paid"'
    assert (
        client.post("/api/v1/ingest", data=ndjson(envelope("request", broken))).get_json()[
            "accepted"
        ]
        == 1
    )
    stored = client.get(f"/api/v1/traces/{TRACE}").get_json()["calls"][0]["snapshots"]["request"][
        "payload"
    ]
    assert stored == f'{{"password":"{REDACTED}","token":"{REDACTED}","q":"paid"'


def test_a_cut_fluent_bit_log_line_is_quarantined_without_its_secrets(client, store):
    record = {"date": 1.0, "log": f'{{"trace_id":"{TRACE}","payload":{{"api_key":"FBKEY-1"'}
    answer = client.post("/api/v1/ingest", data=ndjson(record)).get_json()
    assert answer["accepted"] == 0 and answer["rejected"]
    [row] = store.quarantine()
    assert "FBKEY-1" not in row["raw"]
    assert (
        json.loads(row["raw"])["log"]
        == f'{{"trace_id":"{TRACE}","payload":{{"api_key":"{REDACTED}"'
    )


def test_luhn_and_card_checks():
    assert luhn_ok("79927398713") and not luhn_ok("79927398710")
    assert looks_like_card("4012 8888 8888 1881") and not looks_like_card("4012 8888 8888 1882")


def test_secrets_sent_to_the_api_are_never_stored(client):
    event = envelope(
        "request",
        {"password": "hunter2", "limit": 5, "max_tokens": 100},
        http={"headers": {"Authorization": "Bearer sk-live-abcdef"}},
    )
    assert client.post("/api/v1/ingest", data=ndjson(event)).status_code == 200
    call = client.get(f"/api/v1/traces/{event['trace_id']}").get_json()["calls"][0]
    request = call["snapshots"]["request"]
    assert request["payload"] == {"password": REDACTED, "limit": 5, "max_tokens": 100}
    assert request["http"]["headers"] == {"Authorization": REDACTED}


def test_a_webhook_url_sent_to_the_api_is_stored_without_its_token_and_with_its_ids(client):
    discord = "https://discord.com/api/webhooks/1098765432109876543/"
    slack = "https://hooks.slack.com/services/T0123ABCD45/B0456EFGH78/"
    token = "Xk3_pQ9vL2mN8rT5wY1zA4bC7dE0fG6hJ9kM2nP5qR8sU1vX4yZ7aB0cD3eF6gH9iJ2kL5m"
    event = envelope(
        "request",
        {"content": "deployed", "fallback": slack + "AbCdEfGhIjKlMnOpQrStUvWx"},
        http={"method": "POST", "url": discord + token + "?wait=true"},
    )
    assert client.post("/api/v1/ingest", data=ndjson(event)).status_code == 200
    call = client.get(f"/api/v1/traces/{event['trace_id']}").get_json()["calls"][0]
    request = call["snapshots"]["request"]
    assert request["http"]["url"] == f"{discord}{REDACTED}?wait=true"
    assert request["payload"] == {"content": "deployed", "fallback": slack + REDACTED}


def test_redaction_can_be_switched_off_and_extended_by_settings(tmp_path):
    app = create_app(
        {"TESTING": True, "DATABASE": str(tmp_path / "a.db"), "ANALYZER": "off", "REDACT": False}
    )
    client = app.test_client()
    client.post("/api/v1/ingest", data=ndjson(envelope(payload={"password": "plain"})))
    call = client.get(f"/api/v1/traces/{envelope()['trace_id']}").get_json()["calls"][0]
    assert call["snapshots"]["arguments"]["payload"] == {"password": "plain"}

    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "b.db"),
            "ANALYZER": "off",
            "REDACT_KEYS": "customer_email",
        }
    )
    client = app.test_client()
    client.post("/api/v1/ingest", data=ndjson(envelope(payload={"customerEmail": "a@b.c"})))
    call = client.get(f"/api/v1/traces/{envelope()['trace_id']}").get_json()["calls"][0]
    assert call["snapshots"]["arguments"]["payload"] == {"customerEmail": REDACTED}


def test_a_field_redacted_in_arguments_and_request_produces_no_finding(redactor):
    arguments = redactor.value({"query": "paid", "api_key": "key-from-the-model"})
    request = redactor.value({"query": "paid", "api_key": "key-added-by-the-mapping"})
    snapshots = {
        "arguments": {"payload": arguments},
        "request": {"payload": request},
        "response": None,
    }
    assert analyze_call(snapshots, None)["findings"] == []


def test_a_rejected_record_is_quarantined_without_its_secrets(client, store):
    bad = envelope(
        "screenshot",
        {"password": "hunter2", "q": "paid"},
        http={"headers": {"Authorization": "Bearer abcdefghijklmnopqrstuv"}},
    )
    answer = client.post("/api/v1/ingest", data=ndjson(bad)).get_json()
    assert answer["rejected"] and answer["accepted"] == 0
    raw = " ".join(row["raw"] for row in store.quarantine())
    assert '"q": "paid"' in raw or '"q":"paid"' in raw
    assert "hunter2" not in raw and "abcdefghijklmnopqrstuv" not in raw


SEPARATORS = ["", "", "", "_", "-", " ", ".", "\n", "\t", "\u0001", "\u00b7", "\u2028", '"']
SECRET_WORDS = [
    "api_key",
    "password",
    "token",
    "authorization",
    "cookie",
    "session_id",
    "client_secret",
    "private_key",
    "tenant-pin",
    "cvv",
]
SECRET_VALUES = [
    "Bearer abcdefghijklmnopq1",
    JWT,
    "4111 1111 1111 1111",
    4111111111111111,
    "ghp_" + "a1B2c3D4e5" * 4,
    "see ?api_key=abc&x=1",
    "AKIAIOSFODNN7EXAMPLE",
    "https://discord.com/api/webhooks/1098765432109876543/Xk3_pQ9vL2mN8rT5wY1zA4bC7dE0fG6h",
    "to hooks.slack.com/services/T0123ABCD45/B0456EFGH78/AbCdEfGhIjKlMnOpQrStUvWx",
]


@st.composite
def secret_key_spellings(draw):
    """A secret key with random case and separators between its letters (normalize_key drops
    them)."""
    word = draw(st.sampled_from(SECRET_WORDS)).replace("_", "").replace("-", "")
    letters = [ch.upper() if draw(st.booleans()) else ch for ch in word]
    return "".join(ch + draw(st.sampled_from(SEPARATORS)) for ch in letters)


def json_texts(values):
    """JSON text of an object as a shipper logs it in a string: whole or cut, escaped or not."""

    @st.composite
    def build(draw):
        text = json.dumps(
            draw(st.dictionaries(KEYS, values, max_size=3)), ensure_ascii=draw(st.booleans())
        )
        letters = sorted(set(re.findall("[A-Za-z]", text)))
        # a letter written as an escape, as no encoder would
        if letters and draw(st.booleans()):
            text = text.replace(letter := draw(st.sampled_from(letters)), f"\\u{ord(letter):04x}")
        return text[: draw(st.integers(0, len(text)))] if draw(st.booleans()) else text

    return build()


def containers(inner):
    return st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4))


KEYS = st.one_of(
    st.sampled_from(["id", "name", "limit", "max_tokens", "pageToken", "note"]),
    secret_key_spellings(),
    st.text(max_size=8),
)
LEAVES = st.one_of(
    st.none(), st.booleans(), st.integers(), st.text(max_size=12), st.sampled_from(SECRET_VALUES)
)
PLAIN_VALUES = st.recursive(LEAVES, containers, max_leaves=8)
# Strings holding JSON text (a Logstash event.original, a Fluent Bit log), and JSON text in JSON
# text.
TEXT_LEAVES = json_texts(st.one_of(PLAIN_VALUES, json_texts(PLAIN_VALUES)))
JSON_VALUES = st.recursive(st.one_of(LEAVES, TEXT_LEAVES), containers, max_leaves=20)


@quick_and_thorough(60, 600)
def test_the_one_scan_proof_never_passes_a_value_the_full_walk_would_redact(examples):
    @settings(max_examples=examples, deadline=None)
    @given(value=st.dictionaries(KEYS, JSON_VALUES, max_size=5))
    def holds(value):
        redactor = Redactor(["tenant-pin"])
        # _clean is the fast path that skips the walk; it may send clean values to the walk, never
        # the reverse
        if redactor._clean(value):
            assert redactor._walk(copy.deepcopy(value)) == value

    holds()


@quick_and_thorough(60, 600)
def test_the_one_scan_proof_never_passes_json_text_the_full_walk_would_redact(examples):
    @settings(max_examples=examples, deadline=None)
    @given(value=st.lists(TEXT_LEAVES, min_size=1, max_size=2))
    def holds(value):
        redactor = Redactor(["tenant-pin"])
        if redactor._clean(value):
            assert redactor._walk(copy.deepcopy(value)) == value

    holds()


def test_a_clean_event_is_passed_through_without_a_copy(redactor):
    event = Event(
        event_id="e1",
        trace_id="t1",
        call_id="c1",
        snapshot="request",
        payload={"customer_email": "dana@example.com", "limit": 5, "ids": [1, 2, 3]},
        http={
            "method": "POST",
            "url": "https://x.example/v1/orders?status=paid",
            "headers": {"accept": "application/json", "x-request-id": "req_1"},
        },
        meta={"host": "agent-7", "time": "2026-11-24T08:00:00Z"},
    )
    assert redactor.event(event) is event


def test_a_clean_event_with_json_text_in_its_metadata_is_passed_through_without_a_copy(redactor):
    original = json.dumps({"trace_id": "t1", "payload": {"status": "paid", "limit": 5}})
    event = Event(
        event_id="e1",
        trace_id="t1",
        call_id="c1",
        snapshot="request",
        payload=original,
        meta={"event": {"original": original}, "host": "agent-7"},
    )
    assert redactor.event(event) is event


def test_url_passwords_presigned_signatures_fragment_tokens_and_named_header_values_are_redacted():
    redactor = Redactor(["signature"])
    value = {
        "url": "https://admin:PW1@h/x?X-Amz-Signature=S3#access_token=S4",
        "dsn": "postgres://user:PW5@db/x",
        "kept": "https://example.com/a@b",
        "headers": [{"name": "Authorization", "value": "xyz"}, {"name": "Accept", "value": "json"}],
        "x-signature": "S7",
    }
    assert redactor.value(value) == {
        "url": f"https://admin:{REDACTED}@h/x?X-Amz-Signature={REDACTED}#access_token={REDACTED}",
        "dsn": f"postgres://user:{REDACTED}@db/x",
        "kept": "https://example.com/a@b",
        "headers": [
            {"name": "Authorization", "value": REDACTED},
            {"name": "Accept", "value": "json"},
        ],
        "x-signature": REDACTED,
    }


def test_added_keys_match_as_suffixes_like_the_built_in_ones():
    redactor = Redactor(["SSN"])
    assert redactor.value({"customer_ssn": "078-05-1120", "ssn_count": 3}) == {
        "customer_ssn": REDACTED,
        "ssn_count": 3,
    }
