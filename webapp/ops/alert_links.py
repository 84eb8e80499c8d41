"""Alert data as receivers get it, linked to tracediff's public address."""


def as_sent(data: dict, settings: dict) -> tuple[dict, dict | None]:
    """Return a message's data as receivers get it, and its one-line facts.

    The problem as the API lists it, with its permalink (a summary's problems too); the facts of its
    one-line message only the outbox keeps."""
    base, facts = public_url(settings), data.get("_line")
    data = _linked(data, base)
    if isinstance(data.get("problems"), list):
        data["problems"] = [
            _linked(p, base) if isinstance(p, dict) else p for p in data["problems"]
        ]
    return data, facts


def _linked(data: dict, base: str) -> dict:
    # the outbox's own keys
    data = {key: value for key, value in data.items() if not key.startswith("_")}
    path = data.pop("permalink_path", None)
    if path:
        data["permalink"] = base + path
    elif isinstance(data.get("permalink"), str) and data["permalink"].startswith("/"):
        data["permalink"] = base + data["permalink"]
    return data


def public_url(settings: dict) -> str:
    """Return the address people reach tracediff at, for links in alerts."""
    return (settings.get("PUBLIC_URL") or f"http://{settings['HOST']}:{settings['PORT']}").rstrip(
        "/"
    )


def permalink_base(settings: dict, recorded: str | None) -> tuple[str, str]:
    """Return the address a command's test message links to and where it came from.

    TRACEDIFF_PUBLIC_URL, else the address `tracediff serve` recorded in the database, else the
    default HOST:PORT."""
    if settings.get("PUBLIC_URL"):
        return settings["PUBLIC_URL"].rstrip("/"), "TRACEDIFF_PUBLIC_URL"
    if recorded:
        return recorded.rstrip("/"), "the address tracediff serve recorded at its start"
    return public_url(
        settings
    ), "the default address: set TRACEDIFF_PUBLIC_URL, no server recorded its own"
