"""A stored contract's version, as `ETag` and `If-Match` name it.

A change made from an old read is refused.

Confirm, reject, adopt and import read and write a contract as its one writer, so they need no
version; a `PUT` replaces the whole contract, and one that names the version it was based on is
refused (412) when another change came in between, rather than silently undoing it."""

import hashlib

from ..common import jsontext
from .errors import ContractError

# the version of a tool with no contract yet
NONE = "none"


class StaleContract(ContractError):
    """The stored contract is no longer the version a change was based on."""

    def __init__(self, name: str, current: str):
        super().__init__(
            f"the contract of {name!r} changed since it was read: its version is now {current!r}; "
            "read it again (GET) and send the change with If-Match set to that version",
            "contract_changed",
            412,
        )
        self.current = current


def contract_version(stored: dict | None) -> str:
    """Return the version of a stored contract.

    As get_tool returns it, its `updated_at` included."""
    if stored is None:
        return NONE
    text = jsontext.dumps(stored, option=jsontext.OPT_SORT_KEYS)
    return hashlib.sha256(text).hexdigest()[:20]


def check_version(name: str, stored: dict | None, expected: set[str] | None) -> None:
    """Raise StaleContract unless the stored contract is an `expected` version.

    None: any; "*": any stored contract."""
    if expected is None:
        return
    version = contract_version(stored)
    if version in expected or ("*" in expected and stored is not None):
        return
    raise StaleContract(name, version)
