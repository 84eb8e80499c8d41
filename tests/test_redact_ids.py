"""Redaction keeps ids.

Real vendors' id formats survive in every place, the secret formats beside them do not.

Redaction that destroys ids destroys the evidence (issue 32, item 4): an account id redacted in the
arguments, the path and the response makes every response fail the vendor's schema and hides every
bug in that path. Secrets are told by their key names and by formats that are secrets (with their
prefixes), never by a format ids share.
"""

import pytest

from webapp.redaction.redactor import REDACTED, Redactor

# Ids as the vendors write them (formats from their API references), made up.
IDS = {
    "Twilio account SID": "AC" + "fedcba9876543210" * 2,
    "Twilio message SID": "SM" + "0123456789abcdef" * 2,
    "Twilio phone number SID": "PN" + "a1b2c3d4e5f60718" * 2,
    "Twilio call SID": "CA" + "9f8e7d6c5b4a3210" * 2,
    "Stripe customer": "cus_NffrFeUfNV2Hib",
    "Stripe payment intent": "pi_3MtwBwLkdIwHu7ix28a3tqPa",
    "Stripe price": "price_1MoBy5LkdIwHu7ixZhnattbh",
    "Stripe request id": "req_87125dccbfbd54",
    "Slack channel": "C0123ABCD45",
    "Slack user": "U07A1B2C3D4",
    "Slack message ts": "1727000000.123456",
    "GitHub node id": "I_kwDOAbc123DEF456",
    "GitHub commit sha": "6dcb09b5b57875f334f61aebed695e2e4193db5e",
    "Shopify gid": "gid://shopify/Customer/4404221345873",
    "UUID": "3f0e6a52-0f39-4c8e-b8a4-62f1ff0e4ad1",
    "ULID": "01ARZ3NDEKTSV4RRFFQ69G5FAV",
    "Mongo ObjectId": "507f1f77bcf86cd799439011",
    "AWS ARN": "arn:aws:iam::123456789012:role/deploy-role",
    "AWS request id": "c6f2f5a0-4d8e-11ef-9a3b-0242ac120002",
    "AWS access key id": "ASIDEXAMPLEIDNOTSECRET",
    "Notion page id": "59833787-2cf9-4fdf-8782-e53db20768a5",
    "Notion page id, compact": "598337872cf94fdf8782e53db20768a5",
    "Airtable record": "recC4rJ0dL0Ywt4pq",
    "Airtable base": "appX7kLm2Qp9RtVw1",
    "Asana gid": "1207149018446926",
    "Linear issue key": "ENG-1234",
    "PagerDuty incident": "Q2KBB5XWB2PTNE",
    "Zendesk ticket": "35436",
    "Discord snowflake": "1098765432109876543",
    "Google Calendar event": "7kvp1d3kq0m8v0c3q0u8s2v9ah",
}

# Secrets as the vendors issue them, made up; each is redacted wherever it sits.
SECRETS = {
    "Stripe secret key": "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "Stripe restricted key": "rk_live_51H8bKjLkdIwHu7ixAbCdEf",
    "GitHub token": "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",
    "Slack bot token": "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "JWT": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "AWS access key": "AKIAIOSFODNN7EXAMPLE",
    "OpenAI key": "sk-proj-AbCdEfGhIjKlMnOpQrSt12T3BlbkFJAbCdEfGhIjKlMnOpQrSt",
    "GitLab token": "glpat-xD4rK9mQ2vN7bT1cL8wZ",
}
# Secrets told by the key they sit under (their format is any random text).
KEYED_SECRETS = {
    # Twilio's auth token: 32 hex, as ids are
    "auth_token": "9f8e7d6c5b4a32109f8e7d6c5b4a3210",
    "aws_secret_access_key": "wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY",
    "client_secret": "Zq8Xw3Vb7Nm2Lk5JZq8Xw3Vb",
    "api_key": "0123456789abcdef0123456789abcdef",
}


def places(value: str) -> dict:
    """The places an id travels in a call: a value, a path, a query, a form body, a sentence, JSON
    text."""
    return {
        "value": {"id": value},
        "path": {"url": f"https://api.example.com/v1/things/{value}/items"},
        "query": {"url": f"https://api.example.com/v1/things?id={value}&limit=5"},
        "form": f"To=%2B15551234567&Sid={value}&Body=hello",
        "sentence": {"text": f"Created {value} for the user."},
        "list": {"ids": [value, "other"]},
    }


ID_CASES = [(kind, where) for kind in IDS for where in places("x")]


@pytest.mark.parametrize("kind,where", ID_CASES, ids=[f"{k}-{w}" for k, w in ID_CASES])
def test_a_vendors_id_survives_redaction_wherever_it_travels(kind, where):
    payload = places(IDS[kind])[where]
    redacted = Redactor().value(payload)
    assert redacted == payload


SECRET_CASES = [(kind, where) for kind in SECRETS for where in places("x")]


@pytest.mark.parametrize("kind,where", SECRET_CASES, ids=[f"{k}-{w}" for k, w in SECRET_CASES])
def test_a_secret_format_is_redacted_wherever_it_travels(kind, where):
    payload = places(SECRETS[kind])[where]
    redacted = Redactor().value(payload)
    assert SECRETS[kind] not in str(redacted)


@pytest.mark.parametrize("key", list(KEYED_SECRETS))
def test_a_secret_under_its_key_is_redacted_beside_the_ids_it_looks_like(key):
    body = {
        "account_sid": IDS["Twilio account SID"],
        key: KEYED_SECRETS[key],
        "object_id": IDS["Mongo ObjectId"],
    }
    assert Redactor().value(body) == {**body, key: REDACTED}
