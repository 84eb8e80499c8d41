"""Arguments the mapping layer keeps for itself, seen in one call.

Issue 32, item 2: an argument that reached no request field where nothing says it had to may be
the layer's own. Figma's image download saves under the model's `localPath` and `fileName` and says
so in its result; neither reaches Figma. Its value in the result, and nowhere in the request or the
answer, shows the layer read it: info, saying what would settle it. Without that, a required
argument gone stays an error."""

import pytest

from webapp.analysis import analyze_call

IMAGES = "https://api.figma.com/v1/images/kX2pQ9wR7tY4uB8nM3vL1z?ids=1%3A2&format=png&scale=2"
ARGUMENTS_SCHEMA = {
    "type": "object",
    "required": ["fileKey", "nodes", "localPath"],
    "properties": {
        "fileKey": {"type": "string"},
        "localPath": {"type": "string"},
        "nodes": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["nodeId", "fileName"],
                "properties": {"nodeId": {"type": "string"}, "fileName": {"type": "string"}},
            },
        },
    },
}
CONTRACT = {"arguments_schema": ARGUMENTS_SCHEMA}
ARGUMENTS = {
    "fileKey": "kX2pQ9wR7tY4uB8nM3vL1z",
    "nodes": [{"nodeId": "1:2", "fileName": "hero.png"}],
    "localPath": "public/images",
}
ANSWER = {"err": None, "images": {"1:2": "https://s3.example.com/images/fa9daf56f554e702"}}
SAVED = "Downloaded 1 images to `/srv/app/public/images`:\n- hero.png: 2880x1800"


def analyse(arguments, result_text, answer=ANSWER, status=200, contract=CONTRACT):
    snapshots = {
        "arguments": {"payload": arguments},
        "request": {"payload": None, "http": {"method": "GET", "url": IMAGES}},
        "response": {"payload": answer, "http": {"status_code": status}},
        "result": {"payload": {"content": [{"type": "text", "text": result_text}]}},
    }
    return analyze_call(snapshots, contract)


def dropped(analysis) -> dict:
    return {
        f["left"]["path"]: (f["severity"], f["message"])
        for f in analysis["findings"]
        if f["kind"] == "dropped" and f["left"]["snapshot"] == "arguments"
    }


def test_arguments_the_result_names_and_the_wire_does_not_are_the_layers():
    analysis = analyse(ARGUMENTS, SAVED)
    found = dropped(analysis)
    assert {path: severity for path, (severity, _) in found.items()} == {
        "/localPath": "info",
        "/nodes/0/fileName": "info",
    }
    assert all("so the layer used it itself" in message for _, message in found.values())
    assert "would tell an argument the layer keeps" in found["/localPath"][1]
    # kept, so paired with nothing: not the last text left beside the constant `format=png`
    assert not [f for f in analysis["findings"] if f["severity"] != "info"]


def test_a_required_argument_gone_that_the_result_does_not_name_stays_an_error():
    analysis = analyse(ARGUMENTS, "Downloaded 1 images:\n- 2880x1800")
    assert dropped(analysis)["/nodes/0/fileName"][0] == "error"


@pytest.mark.parametrize(
    "answer",
    [
        # the server holds the value: it came back from the answer, not the layer
        {**ANSWER, "saved_to": "public/images", "names": ["hero.png"]},
    ],
)
def test_a_value_the_answer_holds_tells_nothing_of_the_layer(answer):
    found = dropped(analyse(ARGUMENTS, SAVED, answer))
    assert found["/nodes/0/fileName"][0] == "error"


def test_a_value_too_short_to_tell_apart_is_never_read_as_kept():
    arguments = {**ARGUMENTS, "nodes": [{"nodeId": "1:2", "fileName": "a"}], "localPath": "img"}
    found = dropped(analyse(arguments, "Downloaded 1 images to img:\n- a: 2880x1800"))
    assert found["/nodes/0/fileName"][0] == "error"


def test_a_contract_that_says_the_argument_travels_keeps_it_loud():
    contract = {**CONTRACT, "mapping": [{"arguments": "/localPath", "request": "query:/path"}]}
    found = dropped(analyse(ARGUMENTS, SAVED, contract=contract))
    assert found["/localPath"][0] != "info"
