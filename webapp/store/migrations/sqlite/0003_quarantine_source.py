"""Migration 3: quarantined records say who sent them (issue 15).

`quarantine.source`."""


def migrate(conn) -> None:
    """Add the column where it is missing.

    Builds made between 0.1.0 and this migration added it at start."""
    if "source" not in {row[1] for row in conn.execute("PRAGMA table_info(quarantine)")}:
        # who sent it: a User-Agent, or a file
        conn.execute("ALTER TABLE quarantine ADD COLUMN source TEXT")
