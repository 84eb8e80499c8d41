"""The store: the only package that names tables and runs SQL.

On SQLite or PostgreSQL.

`Store(path or URL)` or `Store.open(...)` opens the engine a DATABASE setting names: sqlite/ or
postgresql/. What both engines share is here: the Store (base.py) over the hooks each engine
implements (engine.py), the row shapes, and the reads and writes that run the engine's named
statements.
"""

# each engine puts its class in Store.engines as it is defined (psycopg waits for a connection)
from . import postgresql, sqlite  # noqa: F401
from .analyses import CLAIM_SECONDS
from .base import IngestResult, Store, engine_class
from .engine import Engine
from .errors import NearlyFull, NotOnThisEngine, SchemaTooNew, StoreUnavailable
from .retention import Reclaimed
from .sqlite import faults
from .sqlite.upkeep import DiskFull

__all__ = [
    "CLAIM_SECONDS",
    "DiskFull",
    "Engine",
    "IngestResult",
    "NearlyFull",
    "NotOnThisEngine",
    "Reclaimed",
    "SchemaTooNew",
    "Store",
    "StoreUnavailable",
    "engine_class",
    "faults",
]
