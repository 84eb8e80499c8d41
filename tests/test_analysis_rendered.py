"""A text rendered as a document is a conversion of its content, not a change.

Layers turn a markdown argument into a rich-text tree (Notion's blocks, Slack's Block Kit, a
ProseMirror document): every word of the text reappears, in order, in the tree's text leaves, beside
the tree's own names. One call at a time that is info that says what would settle it; a tree that
lost a word, changed one or reordered them stays loud. The shapes follow the vendors' public
documentation, none the real-layer corpus."""

import pytest

from webapp.analysis import analyze_call
from webapp.analysis.values.rendered import rendering

LOUD = ("warning", "error")
TEXT = "Deployed **v2.14.1** to production.\n- checked DNS\n- cache cleared"


def notion(*runs) -> dict:
    """A Notion-style block list: one paragraph of rich-text runs (text, bold)."""
    return {
        "children": [
            {
                "object": "block",
                "type": "paragraph",
                "paragraph": {
                    "rich_text": [
                        {
                            "type": "text",
                            "text": {"content": text},
                            "annotations": {"bold": bold},
                        }
                        for text, bold in runs
                    ]
                },
            }
        ]
    }


def slack(*texts) -> list:
    """Slack Block Kit sections, one mrkdwn text each."""
    return [{"type": "section", "text": {"type": "mrkdwn", "text": t}} for t in texts]


def prose(*paragraphs) -> dict:
    """A ProseMirror document: paragraphs of text nodes, the bold ones marked."""
    return {
        "type": "doc",
        "content": [
            {
                "type": "paragraph",
                "content": [
                    {"type": "text", "text": t, **({"marks": [{"type": "strong"}]} if b else {})}
                    for t, b in runs
                ],
            }
            for runs in paragraphs
        ],
    }


RENDERED = prose(
    [("Deployed ", False), ("v2.14.1", True), (" to production.", False)],
    [("checked DNS", False)],
    [("cache cleared", False)],
)


@pytest.mark.parametrize(
    "doc",
    [
        RENDERED,
        notion(("Deployed ", False), ("v2.14.1", True), (" to production. checked DNS", False)),
        # a word of the text that is also one of the tree's names (`text`) is read either way
        slack("Deployed *v2.14.1* to production.", "- checked DNS\n- cache cleared"),
    ],
)
def test_a_document_holding_the_texts_words_in_order_is_its_rendering(doc):
    text = TEXT if "cache" in str(doc) else "Deployed **v2.14.1** to production. checked DNS"
    assert rendering(text, doc)


@pytest.mark.parametrize(
    "doc",
    [
        # a word lost
        prose([("Deployed ", False), (" to production.", False)], [("checked DNS", False)]),
        # a word changed
        prose([("Deployed v2.14.2 to production.", False)], [("checked DNS cache cleared", False)]),
        # the words in another order
        prose([("cache cleared", False)], [("Deployed v2.14.1 to production. checked DNS", False)]),
        # free text no word of the argument explains
        prose(
            [("Deployed v2.14.1 to production.", False)], [("checked DNS. See the runbook", False)]
        ),
        # the text wrapped in an object: no tree of its own
        {"note": {"body": "Deployed v2.14.1 to production. checked DNS cache cleared"}},
    ],
)
def test_a_document_that_departs_from_the_text_is_no_rendering(doc):
    assert not rendering(TEXT, doc)


def call(arguments, body):
    snaps = {
        "arguments": {"payload": arguments, "http": None},
        "request": {
            "payload": body,
            "http": {"method": "POST", "url": "https://api.example.com/v1/pages/p-1/comments"},
        },
        "response": None,
    }
    return analyze_call(snaps, None)


def changes(result) -> list[tuple]:
    return [
        (f["kind"], f["severity"], f["left"]["path"], f["message"])
        for f in result["findings"]
        if f["left"] and f["right"] and f["left"]["path"] == "/body"
    ]


def test_a_text_sent_rendered_is_info_that_says_what_would_settle_it():
    [(kind, severity, left, message)] = changes(call({"body": TEXT}, {"body": RENDERED}))
    assert (kind, severity, left) == ("value_changed", "info", "/body")
    assert "rendered as a document" in message and "would settle it" in message


def test_a_rendering_that_lost_a_word_stays_loud():
    lost = prose([("Deployed v2.14.1 to production.", False)], [("checked DNS", False)])
    [(kind, severity, left, _)] = changes(call({"body": TEXT}, {"body": lost}))
    assert (kind, severity, left) == ("value_changed", "warning", "/body")
