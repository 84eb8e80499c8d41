"""The analysis engine: pure functions, no Flask, no database, no file I/O."""

from .alignment import full_alignment
from .contracts import check_contract
from .engine import analyze_call
from .kinds import DEFAULT_ERROR_SCHEMA, FINDING_KINDS
from .openapi import tools_from_openapi
from .tooldefs import tools_from_definitions

__all__ = ["analyze_call", "full_alignment", "check_contract", "tools_from_definitions", "tools_from_openapi",
           "DEFAULT_ERROR_SCHEMA", "FINDING_KINDS"]
