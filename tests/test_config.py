"""Settings from TRACEDIFF_* variables: a value a setting cannot take is refused, never guessed."""
import pytest

from webapp.config import SettingError, load_settings


@pytest.mark.parametrize("name, raw", [("REDACT", "enabled"), ("REDACT", ""), ("MAX_DEPTH", "abc"),
                                       ("SYNCHRONOUS", "bogus"), ("RETENTION_DAYS", "7d"), ("ANALYZER", "thread")])
def test_a_value_a_setting_cannot_take_is_refused_with_its_name(name, raw):
    with pytest.raises(SettingError, match=f"TRACEDIFF_{name}"):
        load_settings(environ={f"TRACEDIFF_{name}": raw})


@pytest.mark.parametrize("raw, expected", [("1", True), ("ON", True), ("yes", True), ("0", False), ("off", False)])
def test_redaction_is_switched_only_by_a_clear_yes_or_no(raw, expected):
    assert load_settings(environ={"TRACEDIFF_REDACT": raw})["REDACT"] is expected


def test_choices_are_read_in_any_case_and_kept_in_their_own():
    settings = load_settings(environ={"TRACEDIFF_SYNCHRONOUS": "normal", "TRACEDIFF_ANALYZER": "OFF"})
    assert (settings["SYNCHRONOUS"], settings["ANALYZER"]) == ("NORMAL", "off")
