"""What the store raises when the database cannot take writes."""


class StoreUnavailable(Exception):
    """The database cannot take writes now (locked, full, read-only)."""
