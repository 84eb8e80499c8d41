"""Contracts read from documents, merged into the stored ones.

pipeline/contracts.py saves them."""

from .checks import CONTRACT_KEYS, validated_contract


def merged_contracts(
    contracts: dict[str, dict], stored: dict[str, dict | None], only_if_missing=()
) -> dict:
    """Return {name: contract}.

    Each read contract merged into the stored one, all checked.

    A part the document lacks is kept; a part named in `only_if_missing` is taken only when the
    stored contract has none. `stored` holds the stored contract of each name (None: none yet)."""
    merged = {}
    for name, parts in contracts.items():
        existing = stored.get(name) or {}
        given = {
            key: value
            for key, value in parts.items()
            if value is not None and not (key in only_if_missing and existing.get(key))
        }
        merged[name] = validated_contract(name, {**_parts(existing), **given})
    return merged


def _parts(contract: dict) -> dict:
    return {key: contract[key] for key in CONTRACT_KEYS if key in contract}
