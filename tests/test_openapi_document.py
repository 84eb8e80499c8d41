"""The OpenAPI document is one checked-in file (webapp/web/openapi.yaml).

Its lists of names the code owns (finding kinds, problem states, snapshots) are the code's, so a new
kind cannot leave the document behind."""

import copy

from webapp.analysis import KIND_NAMES
from webapp.common.stages import CORE, NAMES
from webapp.problems.fingerprint import SCHEMA_KIND
from webapp.problems.states import STATES
from webapp.version import __version__
from webapp.web import openapi


def enums(node, place: str = "") -> list[tuple[str, list]]:
    """Every `enum` list in a document, with its JSON Pointer."""
    if isinstance(node, list):
        return [found for i, item in enumerate(node) for found in enums(item, f"{place}/{i}")]
    if not isinstance(node, dict):
        return []
    here = [(f"{place}/enum", node["enum"])] if isinstance(node.get("enum"), list) else []
    escaped = {key: str(key).replace("~", "~0").replace("/", "~1") for key in node}
    return here + [
        found for key, value in node.items() for found in enums(value, f"{place}/{escaped[key]}")
    ]


def stale(document: dict) -> list[str]:
    """The enums listing finding kinds, problem states or snapshots that list other names than the
    code.

    An enum is read as one of those lists when it shares three names with it: a delivery's `dropped`
    state or an alert rule's `regressed` event is no finding kind or problem state list."""
    owned = [
        (KIND_NAMES, ([*KIND_NAMES], [*KIND_NAMES, SCHEMA_KIND])),
        (STATES, ([*STATES],)),
        # the core stages name a finding's ends and a mapping's sides; every stage is in the others
        (NAMES, ([*NAMES], [*CORE])),
    ]
    wrong = []
    for place, values in enums(document):
        for names, allowed in owned:
            if len(set(names) & set(values)) >= 3 and values not in allowed:
                wrong.append(f"{place}: {values}")
    return wrong


def test_the_documents_lists_of_kinds_states_and_snapshots_are_the_codes():
    assert not stale(openapi.document()), "edit webapp/web/openapi.yaml:\n" + "\n".join(
        stale(openapi.document())
    )


def test_the_check_sees_a_kind_the_document_misses():
    document = copy.deepcopy(openapi.document())
    kinds = document["components"]["schemas"]["Problem"]["properties"]["kind"]["enum"]
    kinds.remove(KIND_NAMES[0])
    assert stale(document) == [f"/components/schemas/Problem/properties/kind/enum: {kinds}"]


def test_the_served_document_says_the_installed_version(client):
    assert client.get("/api/v1/openapi.json").get_json()["info"]["version"] in (__version__, "0")
