"""What a DATABASE setting names: a SQLite file path, or a PostgreSQL URL."""
from urllib.parse import urlsplit, urlunsplit


def is_postgres_url(text) -> bool:
    return str(text).startswith(("postgresql://", "postgres://"))


def redacted_url(url: str) -> str:
    """Return a database URL without its password, for logs and messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@")))
