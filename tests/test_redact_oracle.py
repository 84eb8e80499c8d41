"""detect-secrets as the oracle of redaction.

Whatever it finds in what was sent, tracediff must not store.

For every detect-secrets plugin but the ones that flag no secret on their own (public IPs, entropy
of any random id), a secret of its kind is planted in every place a payload carries text: a string
value, a sentence, a `KEY=value` line, a YAML-like line, a URL query, a header, JSON text logged
inside a string, and a quarantined record that is not even JSON. The detector must find it before
redaction (so the test can fail) and find nothing of that kind after.
"""

import functools
import json

import orjson
import pytest
from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
from detect_secrets.settings import default_settings

from webapp.redaction.redactor import REDACTED, Redactor

NOT_SECRETS = {"Public IP (ipv4)", "Base64 High Entropy String", "Hex High Entropy String"}
# 40 characters of a made-up key
B64 = "wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEYab"

# One made-up secret per detect-secrets plugin, written as that kind of secret is written in the
# wild.
SECRETS = {
    "Artifactory Credentials": "AKCp8jQ8tR9s2vX3yZ4aB5cD6eF7gH8iJ9kL0mN",
    "AWS Access Key": "AKIAIOSFODNN7EXAMPLE",
    "AWS secret key": f'aws_secret_access_key="{B64}"',
    "Azure Storage Account access key": "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey="
    + "lJzRc1YdHaAA2KCNJJ1tkYwF/+mKK6Ygw0NGe170Xu592euJv2wYUtBlV8z+qnlcNkBAq6/8IfBGkPOnrlGbT7/Qw==",
    "Basic Auth Credentials": "https://deploy:s3cr3tPa55@registry.example.com/v2/",
    "Cloudant Credentials": "https://acme:" + "ab12" * 16 + "@acme.cloudant.com",
    "Discord Bot Token": "MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs",
    "GitHub Token": "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",
    "GitLab Token": "glpat-xD4rK9mQ2vN7bT1cL8wZ",
    "IBM Cloud IAM Key": 'ibm_cloud_iam_api_key = "'
    + "aB3dE_fG5hI-jK7lM9nO1pQ3rS5tU7vW9xY1zA3bC5dE"
    + '"',
    "IBM COS HMAC Credentials": 'cos_hmac_secret_access_key = "' + "a1b2c3d4e5f6" * 4 + '"',
    "JSON Web Token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "Mailchimp Access Key": "0123456789abcdef0123456789abcdef-us12",
    "Secret Keyword": "DB_PASSWORD=hunter2hunter2",
    "NPM tokens": "//registry.npmjs.org/:_authToken=npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "OpenAI Token": "sk-proj-AbCdEfGhIjKlMnOpQrSt12T3BlbkFJAbCdEfGhIjKlMnOpQrSt",
    "Private Key": "-----BEGIN OPENSSH PRIVATE "
    "KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
    "-----END OPENSSH PRIVATE KEY-----",
    "PGP private key": "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF0aaaa\n-----END PGP PRIVATE "
    "KEY BLOCK-----",
    "PyPI Token": "pypi-AgEIcHlwaS5vcmc" + "Ab1_Cd2-Ef3" * 8,
    "SendGrid API Key": "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",
    "Slack Token": "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "Slack webhook": "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    "SoftLayer Credentials": "https://api.softlayer.com/soap/v3/" + "ab12cd34" * 8,
    "Square OAuth Secret": "sq0csp-" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdE",
    "Stripe Access Key": "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "Telegram Bot Token": "110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1",
    "Twilio API Key": "SK" + "0123456789abcdef" * 2,
    "keyword in YAML": "api_key: Ab3dEf9hIj2LmNoP5rSt",
    "keyword in a shell line": 'export CLIENT_SECRET="Zq8Xw3Vb7Nm2Lk5J"',
}


# What detect-secrets flags that is an id, not a secret: kept, as the evidence it is
# (tests/test_redact_ids.py). an account SID; its auth token is the secret
ORACLE_IDS = {"Twilio account": "AC" + "fedcba9876543210" * 2}


def _plugins():
    with default_settings():
        return [
            cls()
            for kind, cls in get_mapping_from_secret_type_to_class().items()
            if kind not in NOT_SECRETS
        ]


PLUGINS = _plugins()


def found(text: str) -> frozenset[str]:
    """What detect-secrets finds in a text, read as a JSON file, a log line and a YAML line.

    The detector reads a text line by line, so each line is read on its own: the lines pages and
    bodies share (their templates') are read once."""
    return frozenset().union(*map(found_in_line, text.splitlines() or [text]))


@functools.lru_cache(maxsize=1 << 16)
def found_in_line(line: str) -> frozenset[str]:
    """What detect-secrets finds in one line, read as a JSON file, a log line and a YAML line."""
    with default_settings():
        return frozenset(
            secret.type
            for plugin in PLUGINS
            for name in ("payload.json", "app.log", "config.yaml")
            for secret in plugin.analyze_line(filename=name, line=line, line_number=1)
        )


def found_in_value(value) -> set[str]:
    """What detect-secrets finds in a stored JSON value: its text, and each string in it on its
    own."""
    kinds = set(found(orjson.dumps(value).decode()))
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack += item.values()
        elif isinstance(item, list):
            stack += item
        elif isinstance(item, str):
            kinds |= found(item)
    return kinds


def places(secret: str) -> dict:
    """The places a payload, its HTTP metadata and its meta carry text, each holding the secret."""
    return {
        "value": {"config": secret},
        "sentence": {"note": f"deploy failed, used {secret} then retried"},
        "line": {"stdout": f"2026-11-30 INFO starting\n{secret}\nready"},
        "url": {"callback": f"https://api.example.com/hook?x=1&cfg={secret}"},
        "json text": {"log": json.dumps({"level": "info", "cfg": secret, "msg": "ok"})},
        "list": {"args": ["--verbose", secret]},
    }


CASES = [(kind, where) for kind in SECRETS for where in places("x")]


@pytest.mark.parametrize("kind", list(SECRETS))
def test_the_oracle_finds_every_sample(kind):
    """Each sample is a secret to detect-secrets, so the tests below can fail."""
    assert found_in_value({"config": SECRETS[kind]})


@pytest.mark.parametrize("kind,where", CASES, ids=[f"{k}-{w}" for k, w in CASES])
def test_nothing_the_detector_finds_is_stored(kind, where):
    payload = places(SECRETS[kind])[where]
    before = found_in_value(payload)
    after = found_in_value(Redactor().value(payload))
    assert not after & before, (kind, where, Redactor().value(payload))


@pytest.mark.parametrize("kind", list(ORACLE_IDS))
def test_an_id_the_oracle_takes_for_a_secret_is_kept(kind):
    """detect-secrets' Twilio plugin flags account SIDs; they are ids, and redacting them destroys
    the evidence."""
    assert found_in_value({"config": ORACLE_IDS[kind]})
    for payload in places(ORACLE_IDS[kind]).values():
        assert Redactor().value(payload) == payload


@pytest.mark.parametrize("kind", list(SECRETS))
def test_headers_and_quarantined_text_are_redacted(kind):
    secret = SECRETS[kind]
    redactor = Redactor()
    headers = {"X-Debug": secret, "X-Request-Id": "abc"}
    assert not found_in_value(redactor.value(headers)) & found_in_value(headers)
    broken = '{"trace_id": "t1", "payload": {"cfg": ' + json.dumps(secret) + ', "cut": "'
    assert not found(redactor.text(broken)) & found(broken), redactor.text(broken)


def test_what_is_no_secret_stays():
    """Ordinary values of a tool call are not touched: ids, amounts, words, dates, URLs."""
    payload = {
        "order_id": "ord_8f3a2b1c9d",
        "totalCents": 129900,
        "status": "paid",
        "limit": 5,
        "accessibility": "high",
        "passenger": "Dana Whitfield",
        "date": "2026-11-30",
        "url": "https://api.example.com/orders?page=2&sort=desc",
        "tokens_used": 1234,
        "max_tokens": 512,
        "keyboard": "qwerty",
        "sku": "ACME-1234-XL",
        "next_page_token": "abc123def456",
    }
    assert Redactor().value(payload) == payload


def test_redaction_keeps_the_marker():
    """The marker replaces the secret, so the reader sees that something was there."""
    redacted = Redactor().value({"note": f"token {SECRETS['GitHub Token']} used"})
    assert REDACTED in redacted["note"]
