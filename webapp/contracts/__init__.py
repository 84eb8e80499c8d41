"""Tool contracts from the documents people already have, checked and saved.

A document may be our own contract (`{"name", "arguments_schema", ...}`), tool
definitions (Anthropic, OpenAI, MCP, Gemini) or an OpenAPI document, in JSON or YAML;
importing merges into a tool's existing contract, so definitions and OpenAPI combine.
Everything here is pure parsing, merging and checking, apart from documents.py (reading files);
webapp/pipeline/contracts.py saves what is read into the store.
"""

from .checks import CONTRACT_KEYS, check_contract, validated_contract
from .definitions import tools_from_definitions
from .documents import YAML_MEDIA_TYPES, load_document, load_file
from .errors import ContractError
from .merge import merged_contracts
from .openapi import tools_from_openapi
from .patterns import skipped_patterns
from .read import (
    Imported,
    contracts_from_document,
    is_bare_contract,
    is_openapi,
    parse_operations,
    read_contracts,
    refuse_unprintable_names,
)
from .refs import ref_problems
from .versions import StaleContract, check_version, contract_version

__all__ = [
    "CONTRACT_KEYS",
    "ContractError",
    "Imported",
    "StaleContract",
    "YAML_MEDIA_TYPES",
    "check_contract",
    "check_version",
    "contract_version",
    "contracts_from_document",
    "is_bare_contract",
    "is_openapi",
    "load_document",
    "load_file",
    "merged_contracts",
    "parse_operations",
    "read_contracts",
    "ref_problems",
    "refuse_unprintable_names",
    "skipped_patterns",
    "tools_from_definitions",
    "tools_from_openapi",
    "validated_contract",
]
