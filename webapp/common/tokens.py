"""Named tokens and what each scope opens: admin > ingest, read.

Pure: no Flask, no database.

Each of TRACEDIFF_ADMIN_TOKENS, TRACEDIFF_INGEST_TOKENS, TRACEDIFF_READ_TOKENS and
TRACEDIFF_METRICS_TOKENS is a comma-separated list whose entries are `secret` or `name:secret`; the
name (or `<scope>#<position>` for an unnamed one) is what logs show, never the secret. A metrics
token opens `/metrics` only; it does not count as a token set for the exposure checks.
"""

import hmac
import re
from dataclasses import dataclass

SCOPES = ("admin", "ingest", "read")
SETTINGS = {
    "admin": "ADMIN_TOKENS",
    "ingest": "INGEST_TOKENS",
    "read": "READ_TOKENS",
    "metrics": "METRICS_TOKENS",
}
# An admin token changes contracts, problems' state and alert rules, and also ingests and reads.
GRANTS = {
    "admin": frozenset(SCOPES),
    "ingest": frozenset({"ingest"}),
    "read": frozenset({"read"}),
    "metrics": frozenset({"metrics"}),
}
# characters of a token `serve` does not warn about
SHORTEST = 16
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}\Z")


class TokenError(ValueError):
    """A token setting holds an entry that cannot be a token."""


@dataclass(frozen=True)
class Token:
    name: str
    secret: str = ""
    scope: str = "read"

    def grants(self, scope: str) -> bool:
        return scope in GRANTS[self.scope]

    # a token printed by mistake shows its name, never its secret
    def __repr__(self) -> str:
        return f"Token({self.name!r}, scope={self.scope!r})"


def entries(value) -> list[str]:
    """Split a comma-separated setting (or take a list) into its non-empty entries."""
    items = (
        value if isinstance(value, (list, tuple, set, frozenset)) else str(value or "").split(",")
    )
    return [item.strip() for item in items if str(item).strip()]


def parse_tokens(value, scope: str) -> tuple[Token, ...]:
    """Read one scope's setting into Tokens.

    Raise TokenError naming the entry by position."""
    tokens = []
    for position, entry in enumerate(entries(value), 1):
        name, colon, secret = entry.partition(":")
        if not colon:
            name, secret = f"{scope}#{position}", entry
        elif not _NAME.match(name):
            raise TokenError(
                f"TRACEDIFF_{SETTINGS[scope]}: entry {position}: a name before ':' is 1-64 "
                "letters, digits, '_', '.', '-' or '@', starting with a letter or digit"
            )
        if not secret.strip():
            raise TokenError(
                f"TRACEDIFF_{SETTINGS[scope]}: entry {position} ({name}) has no secret after ':'"
            )
        tokens.append(Token(name, secret.strip(), scope))
    return tuple(tokens)


@dataclass(frozen=True)
class Keyring:
    """Every configured token, and which scopes have tokens set."""

    tokens: tuple[Token, ...] = ()

    @classmethod
    def from_settings(cls, settings: dict) -> "Keyring":
        tokens = tuple(
            t for scope in SETTINGS for t in parse_tokens(settings.get(SETTINGS[scope], ""), scope)
        )
        names = [t.name for t in tokens]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise TokenError(
                f"token names must be unique across the token settings: {', '.join(twice)}"
            )
        return cls(tokens)

    def configured(self, scope: str) -> bool:
        return any(t.scope == scope for t in self.tokens)

    @property
    def empty(self) -> bool:
        """Say whether no admin, ingest or read token is set.

        Metrics tokens open only /metrics."""
        return not any(t.scope in SCOPES for t in self.tokens)

    def find(self, secret: str) -> Token | None:
        """Return the token with this secret (the widest scope if listed twice).

        Comparing in constant time."""
        found = None
        # every comparison runs, so timing says nothing about which matched
        for token in self.tokens:
            if hmac.compare_digest(secret.encode(), token.secret.encode()) and found is None:
                found = token
        return found if secret else None


def startup_warnings(keyring: Keyring) -> list[str]:
    """Say at start what is open to anyone, wider than it seems, or short.

    Which tokens are short."""
    return _openings(keyring) + short_tokens(keyring)


def short_tokens(keyring: Keyring) -> list[str]:
    """Name each token shorter than SHORTEST characters.

    By its name and setting, not its secret."""
    return [
        f"TRACEDIFF_{SETTINGS[token.scope]}: token {token.name} is shorter than {SHORTEST} "
        "characters; a guesser needs fewer tries: make it 16 or more random characters"
        " (python -c 'import secrets; print(secrets.token_urlsafe(24))')"
        for token in keyring.tokens
        if len(token.secret) < SHORTEST
    ]


def _openings(keyring: Keyring) -> list[str]:
    """Say what is open to anyone, or wider than its name suggests."""
    if keyring.empty:
        return [
            "no tokens are set: anyone who can reach the port can ingest, read and change "
            "contracts "
            "(set TRACEDIFF_ADMIN_TOKENS, TRACEDIFF_INGEST_TOKENS and TRACEDIFF_READ_TOKENS)"
        ]
    warnings = [
        f"TRACEDIFF_{SETTINGS[scope]} is not set: {what} is open to anyone"
        for scope, what in (("ingest", "ingest"), ("read", "reading pages and API"))
        if not keyring.configured(scope)
    ]
    if not keyring.configured("admin"):
        holder = "ingest" if keyring.configured("ingest") else "read"
        warnings.append(
            f"TRACEDIFF_ADMIN_TOKENS is not set: {holder} tokens can change contracts; set admin "
            "tokens so that a shipper's token can only ingest"
        )
    return warnings
