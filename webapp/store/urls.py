"""What a DATABASE setting names: a SQLite file path, or a PostgreSQL URL."""

import re
from urllib.parse import urlsplit, urlunsplit


def is_postgres_url(text) -> bool:
    return str(text).startswith(("postgresql://", "postgres://"))


def redacted_url(url: str) -> str:
    """Return a database URL without its password, for logs and messages."""
    try:
        parts = urlsplit(url)
        password = parts.password
    # not a URL urllib can read: hide whatever stands between ':' and '@'
    except ValueError:
        return re.sub(r"(//[^/:@]*):[^@/]*@", r"\1:***@", url)
    if password is None:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.replace(f":{password}@", ":***@")))
