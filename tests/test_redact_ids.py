"""Redaction keeps ids.

Real vendors' id formats survive in every place, the secret formats beside them do not.

Redaction that destroys ids destroys the evidence (issue 32, item 4): an account id redacted in the
arguments, the path and the response makes every response fail the vendor's schema and hides every
bug in that path. Secrets are told by their key names and by formats that are secrets (with their
prefixes), never by a format ids share.
"""

from urllib.parse import quote

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


# Webhook URLs as the vendors issue them, made up: (up to the token, the token, what follows). The
# token is a secret wherever the URL travels; the ids before it name the destination and stay.
WEBHOOK_URLS = {
    "Discord webhook": (
        "https://discord.com/api/webhooks/1098765432109876543/",
        "Xk3_pQ9vL2mN8rT5wY1zA4bC7dE0fG6hJ9kM2nP5qR8sU1vX4yZ7aB0cD3eF6gH9iJ2kL5m",
        "",
    ),
    "Discord webhook, versioned API and Slack-compatible": (
        "https://discord.com/api/v10/webhooks/1098765432109876543/",
        "aB3dE_fG5hI-jK7lM9nO1pQ3rS5tU7vW9xY1zA3bC5dE7fG9hI1jK3lM5nO7pQ9rS1tU3",
        "/slack?wait=true",
    ),
    "Discord webhook, legacy host": (
        "https://discordapp.com/api/webhooks/987654321098765432/",
        "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8Nn7Mm6Ll5Kk4Jj3Ii2Hh1Gg0Ff9Ee8Dd7Cc6",
        "",
    ),
    "Slack incoming webhook": (
        "https://hooks.slack.com/services/T0123ABCD45/B0456EFGH78/",
        "AbCdEfGhIjKlMnOpQrStUvWx",
        "",
    ),
    "Slack workflow webhook": (
        "https://hooks.slack.com/workflows/T0123ABCD45/A0456EFGH78/456789012345678901/",
        "q1W2e3R4t5Y6u7I8o9P0a1S2",
        "",
    ),
    "Slack trigger": (
        "https://hooks.slack.com/triggers/T0123ABCD45/4567890123456/",
        "0f1e2d3c4b5a69788796a5b4c3d2e1f0",
        "",
    ),
    "Zapier catch hook": ("https://hooks.zapier.com/hooks/catch/1234567/", "3abcd9x", "/"),
    "IFTTT Maker key": (
        "https://maker.ifttt.com/trigger/order_shipped/with/key/",
        "dAbCdEfGhIjKlMnOpQrStU",
        "",
    ),
}
# the ids of each webhook URL, which stay wherever it travels
WEBHOOK_IDS = {
    "Discord webhook": ["1098765432109876543"],
    "Discord webhook, versioned API and Slack-compatible": ["1098765432109876543", "slack"],
    "Discord webhook, legacy host": ["987654321098765432"],
    "Slack incoming webhook": ["T0123ABCD45", "B0456EFGH78"],
    "Slack workflow webhook": ["T0123ABCD45", "A0456EFGH78", "456789012345678901"],
    "Slack trigger": ["T0123ABCD45", "4567890123456"],
    "Zapier catch hook": ["1234567"],
    "IFTTT Maker key": ["order_shipped"],
}


def webhook_places(url: str) -> dict:
    """The places a webhook URL travels in a call: a value, a request's URL, a query value and a form
    field (percent-encoded), a sentence, JSON text logged in a string."""
    return {
        "value": {"webhook_url": url},
        "request": {"method": "POST", "url": url, "body": {"content": "deployed"}},
        "query": {"url": f"https://api.example.com/v1/hooks?target={quote(url, safe='')}&x=1"},
        "form": f"name=alerts&url={quote(url, safe='')}&active=1",
        "sentence": {"text": f"Posted to {url} at 10:00."},
        "json text": {"log": f'{{"level": "info", "hook": "{url}"}}'},
    }


WEBHOOK_CASES = [(kind, where) for kind in WEBHOOK_URLS for where in webhook_places("x")]


@pytest.mark.parametrize("kind,where", WEBHOOK_CASES, ids=[f"{k}-{w}" for k, w in WEBHOOK_CASES])
def test_a_webhook_urls_token_is_redacted_and_its_ids_kept_wherever_it_travels(kind, where):
    kept, token, tail = WEBHOOK_URLS[kind]
    redacted = str(Redactor().value(webhook_places(kept + token + tail)[where]))
    assert token not in redacted
    assert all(id_ in redacted for id_ in WEBHOOK_IDS[kind]), redacted


@pytest.mark.parametrize("kind", list(WEBHOOK_URLS))
def test_a_webhook_url_keeps_all_but_its_token_as_written(kind):
    kept, token, tail = WEBHOOK_URLS[kind]
    payload = webhook_places(kept + token + tail)
    for where in ("value", "request", "sentence"):
        assert Redactor().value(payload[where]) == webhook_places(kept + REDACTED + tail)[where]


def test_other_urls_of_the_webhook_hosts_are_kept():
    for url in (
        "https://discord.com/channels/1098765432109876543/1098765432109876544",
        "https://discord.com/api/v10/channels/1098765432109876543/messages",
        "https://hooks.slack.com/",
        "https://discord.com/api/webhooks/1098765432109876543",
    ):
        assert Redactor().value({"url": url}) == {"url": url}
