"""A tool's error envelope learnt from its history (issue 32, item 3).

A field every earlier error answer carried that an error answer of the newest release lacks is an
error_shape warning."""

from webapp.analysis import error_field_name, error_text_name
from webapp.inference.epochs import established
from webapp.inference.error_fields import (
    Envelope,
    envelope,
    envelopes,
    error_presence,
    lost_fields,
)
from webapp.inference.evidence import merge


def answer(body, status=404):
    return {"payload": body, "http": {"status_code": status}}


def GITHUB(message="Not Found"):  # noqa: N802
    return {
        "message": message,
        "documentation_url": "https://docs.github.com/rest",
        "status": "404",
    }


def learnt(*responses, newest=False) -> frozenset:
    presence: dict = {}
    for response in responses:
        merge(presence, error_presence(response, newest))
    return envelope(presence, established)


def test_the_fields_every_earlier_error_answer_carried_are_the_tools_envelope():
    stripe = {"error": {"code": "resource_missing", "message": "No such customer", "type": "x"}}
    carried = learnt(answer(GITHUB()), answer(GITHUB("Gone"), 410), answer({"id": 1}, 200))
    assert carried == {"/message", "/documentation_url"}
    assert learnt(answer(stripe), answer(stripe, 400)) == {
        "/error",
        "/error/code",
        "/error/message",
        "/error/type",
    }


def test_one_earlier_error_answer_teaches_no_envelope():
    assert learnt(answer(GITHUB())) == frozenset()


def test_an_error_answer_that_lost_a_field_its_tool_always_carried_is_a_warning():
    carried = learnt(answer(GITHUB()), answer(GITHUB()))
    [found] = lost_fields(answer({"message": "Not Found", "status": "404"}), carried)
    assert (found["kind"], found["severity"]) == ("error_shape", "warning")
    assert found["right"] == {"snapshot": "response", "path": "/documentation_url"}
    assert "every earlier error answer of this tool carried it" in found["message"]
    assert lost_fields(answer(GITHUB("Validation Failed"), 422), carried) == []


def test_an_error_answer_in_an_envelope_of_its_own_lost_nothing():
    # a service's own errors, and the 429 of the gateway in front of it (AWS API Gateway's
    # throttling answer): another envelope, not the service's answer with its fields lost
    error = {"error": {"code": "not_found", "message": "No such order"}}
    carried = learnt(answer(error, 404), answer(error, 422))
    assert lost_fields(answer({"message": "Too Many Requests"}, 429), carried) == []
    # the service's envelope with a field gone, or nothing that tells an error left, is told
    assert [f["right"]["path"] for f in lost_fields(answer({"error": {"code": "x"}}), carried)] == [
        "/error/message"
    ]
    assert [f["right"]["path"] for f in lost_fields(answer({"ok": False}), carried)] == ["/error"]


def test_an_error_object_lost_whole_is_told_at_the_object_once():
    error = {"error": {"code": 2001, "message": "Invalid Input Provided"}}
    carried = learnt(answer(error, 400), answer(error, 400))
    assert [f["right"]["path"] for f in lost_fields(answer({}, 400), carried)] == ["/error"]
    lost = lost_fields(answer({"error": {"code": 2001}}, 400), carried)
    assert [f["right"]["path"] for f in lost] == ["/error/message"]


def test_successes_and_bodies_that_are_no_object_teach_nothing():
    assert error_presence(answer({"message": "ok"}, 200), False) == {}
    assert error_presence(answer("Retry later", 429), False) == {}
    assert lost_fields(answer({"id": 5}, 201), frozenset({"/message"})) == []


def test_the_newest_releases_error_answers_teach_nothing_until_a_newer_release_comes():
    carried = learnt(answer(GITHUB()), answer(GITHUB()), newest=True)
    assert carried == frozenset()


def test_an_error_answer_that_lost_its_description_is_a_warning():
    # an error text under `description`, a common name for it (PayPal's details, Bot APIs)
    error = {"ok": False, "error_code": 400, "description": "Bad Request: chat not found"}
    carried = learnt(answer(error, 400), answer(error, 400))
    assert "/description" in carried
    lost = lost_fields(answer({"ok": False, "error_code": 400, "status": "x"}, 400), carried)
    assert [f["right"]["path"] for f in lost] == ["/description"]


def test_an_error_answer_left_with_a_code_and_no_text_lost_its_text():
    # Twilio's errors carry {code, message, more_info, status}; the tool's history held two 429s,
    # one without a code: a 404 that kept its code and status and no text is no envelope of its
    # own, it lost the message every earlier error carried
    throttled = {"code": 20429, "message": "Too Many Requests", "status": 429}
    carried = learnt(
        answer({"message": "Too Many Requests", "status": 429}, 429), answer(throttled, 429)
    )
    assert carried == {"/message"}
    lost = lost_fields(answer({"code": 20404, "more_info": "https://x", "status": 404}), carried)
    assert [f["right"]["path"] for f in lost] == ["/message"]
    # a text of its own under another name is another envelope
    assert lost_fields(answer({"detail": "Not found", "code": 20404}), carried) == []


def test_a_short_err_is_the_envelopes_text_and_an_answer_without_it_lost_it():
    # Figma's REST API: `{"status": 404, "err": "Not found"}`
    def figma(status, err):
        return answer({"status": status, "err": err}, status)

    carried = learnt(figma(404, "Not found"), figma(429, "Rate limit exceeded"))
    assert carried == {"/err"}
    [found] = lost_fields(answer({"status": 403}, 403), carried)
    assert found["right"] == {"snapshot": "response", "path": "/err"}
    assert lost_fields(figma(403, "Invalid token"), carried) == []


def envelope_of(*responses) -> Envelope:
    presence: dict = {}
    for response in responses:
        merge(presence, error_presence(response, False))
    return envelopes(presence, established)


def test_an_answer_is_judged_by_what_the_earlier_answers_of_its_status_carried():
    # an OAuth layer's 401 says only `error` (RFC 6750); the service's own 422s add a
    # `message`: the tool's answers share only `error`, each status more
    unauthorized = answer({"error": "invalid_token"}, 401)
    invalid = answer({"error": "validation_failed", "message": "name is too long"}, 422)
    learnt_here = envelope_of(invalid, unauthorized, invalid, invalid)
    assert learnt_here.every == {"/error"}
    lost = answer({"error": "validation_failed"}, 422)
    assert [f["right"]["path"] for f in lost_fields(lost, learnt_here.carried(lost))] == [
        "/message"
    ]
    # a 401 as it always came, and a status the history holds too few answers of, lost nothing
    assert lost_fields(unauthorized, learnt_here.carried(unauthorized)) == []
    throttled = answer({"error": "rate_limited"}, 429)
    assert lost_fields(throttled, learnt_here.carried(throttled)) == []


def test_a_status_whose_answers_share_a_field_other_statuses_lack_keeps_it():
    # a framework's 400 of field errors (`{"name": [...]}`) beside its 403s with a `detail`
    forbidden = answer({"detail": "You do not have permission to perform this action."}, 403)
    fields = answer({"name": ["This field may not be blank."]}, 400)
    learnt_here = envelope_of(forbidden, fields, forbidden)
    assert learnt_here.every == frozenset()
    empty = answer({}, 403)
    [found] = lost_fields(empty, learnt_here.carried(empty))
    assert found["right"] == {"snapshot": "response", "path": "/detail"}
    assert lost_fields(fields, learnt_here.carried(fields)) == []


def test_an_empty_error_answer_lost_what_the_one_earlier_answer_told():
    learnt_here = envelope_of(answer({"detail": "Not found."}, 404))
    assert learnt_here.every == frozenset()
    empty = answer({}, 429)
    [found] = lost_fields(empty, learnt_here.carried(empty))
    assert found["right"]["path"] == "/detail"
    # one answer shows no envelope for an answer that still says something
    other = answer({"code": "throttled"}, 429)
    assert lost_fields(other, learnt_here.carried(other)) == []
    # an empty answer of a tool whose earlier answers told in different shapes lost nothing known
    mixed = envelope_of(answer({"detail": "Not found."}), answer({"message": "Gone"}, 410))
    assert lost_fields(empty, mixed.carried(empty)) == []


def test_counts_kept_before_statuses_were_counted_judge_by_the_tools_envelope():
    presence: dict = {}
    for _ in range(3):
        merge(
            presence, {(k, p): {"calls": 1} for (k, p) in error_presence(answer(GITHUB()), False)}
        )
    learnt_here = envelopes(presence, established)
    assert learnt_here.by_status == ()
    lost = answer({"message": "Not Found"})
    assert [f["right"]["path"] for f in lost_fields(lost, learnt_here.carried(lost))] == [
        "/documentation_url"
    ]


def test_a_tool_with_too_few_error_answers_is_judged_by_its_services():
    # Cloudflare's v4 envelope from another tool of the same API: `{success, errors: [{code,
    # message}]}`; this tool's own history holds one error answer
    def v4(status, code, message=None):
        error = {"code": code} | ({"message": message} if message else {})
        return answer({"success": False, "errors": [error], "messages": []}, status)

    own = [v4(403, 10000, "Authentication error")]
    others = [v4(400, 10014, "already exists"), v4(403, 10000, "Authentication error")]
    presence: dict = {}
    for response in own:
        merge(presence, error_presence(response, False))
    service = {key: dict(counts) for key, counts in presence.items()}
    for response in others:
        merge(service, error_presence(response, False))
    alone, pooled = envelopes(presence, established), envelopes(presence, established, service)
    lost = v4(429, 971)
    assert lost_fields(lost, alone.carried(lost)) == []
    assert [f["right"]["path"] for f in lost_fields(lost, pooled.carried(lost))] == [
        "/errors/0/message"
    ]
    assert lost_fields(v4(429, 971, "slow down"), pooled.carried(v4(429, 971, "x"))) == []
    # its own answers, when enough, come first: the service's share less
    mine = envelope_of(v4(404, 7003, "Not found"), v4(404, 7003, "Not found"))
    assert pooled.service is not None and mine.service is None


def test_a_name_holding_an_errors_word_tells_an_error_plural_or_not():
    for name in (
        "errorMessages",
        "error_details",
        "validationErrors",
        "faultString",
        "userMessage",
    ):
        assert error_field_name(name), name
    for name in ("errorCount", "messageId", "status", "documentation_url", "timestamp"):
        assert not error_field_name(name), name
    assert error_text_name("errorMessages") and not error_text_name("validationErrors")


def test_an_answer_that_lost_a_list_of_messages_under_a_name_of_its_own_lost_it():
    # Jira's `{"errorMessages": [...], "errors": {}}`: the messages are the error's text
    def jira(*messages):
        return answer({"errorMessages": list(messages), "errors": {}}, 404)

    carried = learnt(jira("Issue does not exist"), jira("Issue does not exist", "or no access"))
    assert carried == {"/errorMessages"}
    [found] = lost_fields(jira(), carried)
    assert found["right"] == {"snapshot": "response", "path": "/errorMessages"}
    assert lost_fields(jira("Issue does not exist"), carried) == []
