"""Migration 2: fill the hourly rollup of a database made before it.

Before `call_hours` existed; a no-op otherwise."""

from webapp.store.hours import backfill_hours


def migrate(conn) -> None:
    """Count calls per tool and hour once.

    The projection keeps the rollup current from then on."""
    backfill_hours(conn)
