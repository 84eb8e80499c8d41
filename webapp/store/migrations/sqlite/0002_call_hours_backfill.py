"""Migration 2: fill the hourly rollup of a database made before `call_hours` existed (a no-op
otherwise)."""

from webapp.store.hours import backfill_hours


def migrate(conn) -> None:
    """Count calls per tool and hour once; the projection keeps the rollup current from then on."""
    backfill_hours(conn)
