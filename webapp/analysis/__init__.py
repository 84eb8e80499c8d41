"""The analysis engine: validation, pairing and findings. Pure functions, no Flask, no database, no file I/O."""

from .alignment import full_alignment
from .engine import analyze_call
from .kinds import DEFAULT_ERROR_SCHEMA, FINDING_KINDS

__all__ = ["analyze_call", "full_alignment", "DEFAULT_ERROR_SCHEMA", "FINDING_KINDS"]
