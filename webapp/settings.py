"""Every setting, declared once with its default and help text.

Read by config.py; the table of docs/settings.md is generated from here."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Setting:
    name: str
    default: object
    help: str
    # numbers below it are refused (a negative count or duration means nothing)
    minimum: float | None = None


SETTINGS = (
    Setting(
        "DATABASE",
        "tracediff.db",
        "Path of the SQLite database file (created if missing), or a postgresql:// URL "
        "(pip install 'tracediff[postgres]'; see docs/deploy.md).",
    ),
    Setting("HOST", "127.0.0.1", "Address `tracediff serve` listens on."),
    Setting("PORT", 8000, "Port `tracediff serve` listens on.", minimum=1),
    Setting("WORKERS", 2, "Gunicorn worker processes of `tracediff serve`.", minimum=1),
    Setting(
        "ADMIN_TOKENS",
        "",
        (
            "Comma-separated tokens, each `secret` or `name:secret`; when set, contract changes "
            "(and other admin "
            "actions) require `Authorization: Bearer <admin token>`. An admin token also ingests "
            "and reads."
        ),
    ),
    Setting(
        "INGEST_TOKENS",
        "",
        (
            "Comma-separated tokens, each `secret` or `name:secret`; when set, ingest requires "
            "`Authorization: Bearer "
            "<token>` (and, while no admin token is set, so do contract changes)."
        ),
    ),
    Setting(
        "READ_TOKENS",
        "",
        (
            "Comma-separated tokens, each `secret` or `name:secret`; when set, the pages (browsers "
            "sign in with Basic "
            "auth, the token as password) and the read API (Bearer) require one."
        ),
    ),
    Setting(
        "ALLOWED_HOSTS",
        "",
        (
            "Comma-separated names the Host header may carry, besides IP addresses, loopback names "
            "and `--host` "
            "(`.example.com` covers its subdomains, `*` any name); others get 400 "
            "`host_not_allowed` (DNS rebinding)."
        ),
    ),
    Setting(
        "ALLOW_OPEN",
        False,
        (
            "Let `tracediff serve` listen on a non-loopback address with no token set (e.g. behind "
            "a proxy that "
            "authenticates people)."
        ),
    ),
    Setting(
        "MAX_CLOCK_SKEW_S",
        300,
        (
            "An event stamped more than this many seconds after it was received is stored at its "
            "receive time (the "
            "sent "
            "`ts` is kept in its meta as `sent_ts`)."
        ),
        minimum=0,
    ),
    Setting(
        "MAX_BODY_BYTES",
        16 * 1024 * 1024,
        "Largest request body accepted as sent (compressed), in bytes.",
        minimum=0,
    ),
    Setting(
        "MAX_DECOMPRESSED_BYTES",
        64 * 1024 * 1024,
        "Largest request body after decompression, in bytes.",
        minimum=0,
    ),
    Setting(
        "PARSE_BUDGET_BYTES",
        24 * 1024 * 1024,
        (
            "Bytes of ingest bodies (as sent) one worker parses at once; a body past it is refused "
            "before it is "
            "parsed with `429 ingest_busy` and `Retry-After` (one body alone is always taken); 0: "
            "no budget."
        ),
        minimum=0,
    ),
    Setting("MAX_DEPTH", 64, "Deepest JSON nesting accepted in one event.", minimum=0),
    Setting("MAX_EVENTS", 10_000, "Most events accepted in one request.", minimum=0),
    Setting("REDACT", True, "Redact secrets (tokens, passwords, card numbers...) before storage."),
    Setting(
        "REDACT_KEYS",
        "",
        "Extra comma-separated key names whose values are redacted, added to the built-in list.",
    ),
    Setting(
        "MIN_FREE_MB",
        64,
        (
            "Ingest answers 503 (retryable) and the background analyser pauses its saves while the "
            "database's disk has less free space than this, so that prune and checkpoints always "
            "have room to work; 0 turns the check off."
        ),
        minimum=0,
    ),
    Setting(
        "RETENTION_DAYS",
        0,
        "Delete traces not seen for this many days (0 keeps everything); also `tracediff prune`.",
        minimum=0,
    ),
    Setting(
        "ANALYZER",
        "background",
        "`background`: a thread in each worker analyses new calls within a second; `off`: only on "
        "read.",
    ),
    Setting(
        "SYNCHRONOUS",
        "FULL",
        (
            "SQLite `synchronous` mode: FULL fsyncs every commit, so an acknowledged batch "
            "survives a power loss; "
            "NORMAL"
            " survives a crash of tracediff only, and is faster."
        ),
    ),
    Setting(
        "ANALYSIS_BUDGET",
        2.0,
        (
            "Seconds of CPU one call's analysis may take; past it the analysis stops, saves what "
            "it found and is "
            "marked "
            "incomplete (0: no limit; `tracediff reanalyze --budget` retries)."
        ),
        minimum=0,
    ),
    Setting(
        "PUBLIC_URL",
        "",
        "Address people reach tracediff at (`https://tracediff.example.com`), for the links in "
        "alerts; default `http://HOST:PORT`.",
    ),
    Setting(
        "WEBHOOK_ALLOW_HOSTS",
        "",
        (
            "Comma-separated hosts and CIDR ranges that alert webhooks may reach although they are "
            "loopback, "
            "link-local "
            "or reserved addresses."
        ),
    ),
    Setting(
        "ALERT_TIMEOUT", 5, "Seconds an alert delivery may take before it is retried.", minimum=0
    ),
    Setting(
        "ALERT_SUMMARY_WAIT",
        30,
        (
            "Seconds a summary alert (a re-analysis, or many problems opening at once) waits "
            "before it is sent; the "
            "summaries and new problems of its rule meanwhile join it, so one run sends one "
            "message."
        ),
        minimum=0,
    ),
    Setting(
        "ALERT_SETTLE_S",
        120,
        (
            "Seconds an alert about a problem may wait for a re-analysis of the calls that show it "
            "(its tool's "
            "inferred "
            "mapping or contract changed) before it is sent as it stands; a problem the "
            "re-analysis empties is never "
            "told."
        ),
        minimum=0,
    ),
    Setting(
        "AUTH_FAILURES",
        10,
        "Wrong tokens one client may send within TRACEDIFF_AUTH_FAILURE_WINDOW_S before its"
        " requests with a token get `429 too_many_failed_tokens` (counted per worker process;"
        " 0: never slowed; see docs/security.md).",
        minimum=0,
    ),
    Setting(
        "AUTH_FAILURE_WINDOW_S",
        60,
        "Seconds over which a client's wrong tokens are counted; a slowed client waits until the"
        " oldest one in the window is this old (`Retry-After`).",
        minimum=1,
    ),
    Setting(
        "RETRY_AFTER",
        2,
        (
            "Seconds sent in `Retry-After` when the database is busy or unavailable, or a worker's "
            "parse budget is "
            "full (429)."
        ),
        minimum=0,
    ),
    # -- serving, health, metrics and logs (docs/operations.md) --
    Setting(
        "THREADS",
        32,
        (
            "Threads per worker of `tracediff serve` (gunicorn gthread workers): requests one "
            "worker answers or "
            "reads at"
            " once."
        ),
        minimum=1,
    ),
    Setting(
        "BODY_TIMEOUT",
        30,
        "Seconds a client has to send a whole request body; a slower one gets `408 body_timeout`.",
        minimum=0,
    ),
    Setting(
        "GRACEFUL_TIMEOUT",
        30,
        "Seconds `tracediff serve` gives accepted requests to finish after SIGTERM or SIGHUP.",
        minimum=0,
    ),
    Setting(
        "TRUSTED_PROXIES",
        "",
        (
            "Comma-separated addresses or networks (CIDR) of reverse proxies whose "
            "`X-Forwarded-For`/`-Proto`/`-Host`/`-Prefix` headers are honoured; ignored from "
            "anyone else."
        ),
    ),
    Setting(
        "METRICS_TOKENS",
        "",
        (
            "Comma-separated tokens, each `secret` or `name:secret` (the name is what the access "
            "log shows), that open "
            "`/metrics` only (besides read and admin tokens); with neither metrics nor read tokens "
            "set, `/metrics` is "
            "open like the pages."
        ),
    ),
    Setting(
        "LOG_FORMAT",
        "text",
        (
            "`text`: one readable line per request; `json`: one JSON object per line (access log, "
            "application log, "
            "errors, and `tracediff serve`'s start lines; a refusal before the server starts stays "
            "one plain line)."
        ),
    ),
    Setting("LOG_QUERY", False, "Write query strings (search terms, filters) into the access log."),
    Setting(
        "READY_MAX_LAG",
        300,
        "Seconds the oldest waiting call may wait for analysis before `/api/v1/ready` answers 503.",
        minimum=0,
    ),
    Setting(
        "READY_MIN_FREE_MB",
        64,
        "Free disk space (MiB) beside the database below which `/api/v1/ready` answers 503.",
        minimum=0,
    ),
    Setting(
        "CROWD_THRESHOLD",
        500,
        (
            "Distinct releases one source named, or distinct tools called, within a day past which "
            "the quarantine "
            "page and `/api/v1/ready` warn of a likely misconfiguration (a build id sent as the "
            "release); 0: never."
        ),
        minimum=0,
    ),
    Setting(
        "SETTINGS_FILE",
        "",
        (
            "File of `TRACEDIFF_NAME=value` lines read after the environment (its values win) at "
            "start and again on "
            "SIGHUP."
        ),
    ),
)
