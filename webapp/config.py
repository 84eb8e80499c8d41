"""Every setting, declared once with its default and help text.

Precedence: defaults, then `TRACEDIFF_<NAME>` environment variables, then the
test config dict given to `create_app`.
"""
import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Setting:
    name: str
    default: object
    help: str


SETTINGS = (
    Setting("DATABASE", "tracediff.db", "Path of the SQLite database file (created if missing)."),
    Setting("HOST", "127.0.0.1", "Address `tracediff serve` listens on."),
    Setting("PORT", 8000, "Port `tracediff serve` listens on."),
    Setting("WORKERS", 2, "Gunicorn worker processes of `tracediff serve`."),
    Setting("INGEST_TOKENS", "", "Comma-separated bearer tokens; when set, ingest and contract changes require `Authorization: Bearer <token>`."),
    Setting("READ_TOKENS", "", "Comma-separated tokens; when set, the pages (browsers sign in with Basic auth, the token as password) and the read API (Bearer) require one."),
    Setting("MAX_BODY_BYTES", 16 * 1024 * 1024, "Largest request body accepted as sent (compressed), in bytes."),
    Setting("MAX_DECOMPRESSED_BYTES", 64 * 1024 * 1024, "Largest request body after decompression, in bytes."),
    Setting("MAX_DEPTH", 64, "Deepest JSON nesting accepted in one event."),
    Setting("MAX_EVENTS", 10_000, "Most events accepted in one request."),
    Setting("REDACT", True, "Redact secrets (tokens, passwords, card numbers...) before storage."),
    Setting("REDACT_KEYS", "", "Extra comma-separated key names whose values are redacted, added to the built-in list."),
    Setting("RETENTION_DAYS", 0, "Delete traces not seen for this many days (0 keeps everything); also `tracediff prune`."),
    Setting("ANALYZER", "background", "`background`: a thread in each worker analyses new calls within a second; `off`: only on read."),
    Setting("SYNCHRONOUS", "FULL", "SQLite `synchronous` mode: FULL fsyncs every commit, so an acknowledged batch survives a power loss; NORMAL survives a crash of tracediff only, and is faster."),
    Setting("ANALYSIS_BUDGET", 2.0, "Seconds of CPU one call's analysis may take; past it the analysis stops, saves what it found and is marked incomplete (0: no limit; `tracediff reanalyze --budget` retries)."),
    Setting("PUBLIC_URL", "", "Address people reach tracediff at (`https://tracediff.example.com`), for the links in alerts; default `http://HOST:PORT`."),
    Setting("WEBHOOK_ALLOW_HOSTS", "", "Comma-separated hosts and CIDR ranges that alert webhooks may reach although they are loopback, link-local or reserved addresses."),
    Setting("ALERT_TIMEOUT", 5, "Seconds an alert delivery may take before it is retried."),
    Setting("RETRY_AFTER", 2, "Seconds sent in `Retry-After` when the database is busy or unavailable."),
)


_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")
CHOICES = {"SYNCHRONOUS": ("FULL", "NORMAL", "EXTRA", "OFF"), "ANALYZER": ("background", "off")}


class SettingError(ValueError):
    """A TRACEDIFF_* variable holds a value its setting cannot take."""


def _convert(name: str, raw: str, default):
    text = raw.strip()
    if isinstance(default, bool):
        if text.lower() not in (*_TRUE, *_FALSE):
            # never guess: a typo in TRACEDIFF_REDACT must not switch redaction off
            raise SettingError(f"TRACEDIFF_{name}={raw!r}: use one of {', '.join(_TRUE + _FALSE)}")
        return text.lower() in _TRUE
    if isinstance(default, float):
        try:
            return float(text)
        except ValueError:
            raise SettingError(f"TRACEDIFF_{name}={raw!r}: must be a number of seconds") from None
    if isinstance(default, int):
        try:
            return int(text)
        except ValueError:
            raise SettingError(f"TRACEDIFF_{name}={raw!r}: must be a whole number") from None
    choices = CHOICES.get(name)
    if not choices:
        return raw
    for choice in choices:
        if choice.upper() == text.upper():
            return choice
    raise SettingError(f"TRACEDIFF_{name}={raw!r}: use one of {', '.join(choices)}")


def load_settings(overrides: dict | None = None, environ=os.environ) -> dict:
    """Return every setting from defaults, environment and overrides; raise SettingError for a bad value."""
    settings = {}
    for setting in SETTINGS:
        raw = environ.get(f"TRACEDIFF_{setting.name}")
        settings[setting.name] = setting.default if raw is None else _convert(setting.name, raw, setting.default)
    settings.update(overrides or {})
    return settings


def token_set(value) -> frozenset[str]:
    """Split a comma-separated token setting into a set of tokens."""
    if isinstance(value, (list, tuple, set, frozenset)):
        return frozenset(value)
    return frozenset(part.strip() for part in str(value or "").split(",") if part.strip())
