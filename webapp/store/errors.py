"""What the store raises: a database that cannot take writes now, or work another engine does its
own way."""


class StoreUnavailable(Exception):
    """The database cannot take writes now (locked, full, read-only)."""


class NotOnThisEngine(Exception):
    """What one store engine does another way (a PostgreSQL backup is pg_dump's job); the message
    says how."""


class SchemaTooNew(StoreUnavailable):
    """The database was migrated by a newer tracediff than this one: refused at open, never guessed
    at."""


class ChangeRefused(ValueError):
    """A change the stored data cannot take (a merge across tools, a resolution with nothing to wait
    for); the message says why. The web layer and the CLI answer it as they answer a bad change."""
