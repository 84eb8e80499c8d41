"""Crowds of values said as the likely misconfiguration they are.

The quarantine page, /api/v1/ready."""


def crowd_warnings(found: list[dict]) -> list[str]:
    """Return one sentence per crowd values.crowds found.

    How many, from where, since when, and the likely cause."""
    out = []
    for crowd in found:
        since = crowd["since"].replace("T", " ") + ":00 UTC"
        if crowd["what"] == "releases":
            source = f"source {crowd['source']}" if crowd["source"] else "calls naming no source"
            out.append(
                f"{crowd['count']:,} releases since {since} from {source}: is a build id or a "
                "deploy id being sent "
                "as the release?"
            )
        else:
            out.append(
                f"{crowd['count']:,} tools called since {since}: is an id (a request's, a user's) "
                "part of the "
                "tool name?"
            )
    return out
