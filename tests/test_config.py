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


def test_the_settings_file_wins_over_the_environment_and_skips_comments(tmp_path):
    path = tmp_path / "tracediff.env"
    path.write_text("# shipper tokens\n\nTRACEDIFF_INGEST_TOKENS=from-file\nexport TRACEDIFF_RETENTION_DAYS='7'\n")
    settings = load_settings(environ={"TRACEDIFF_SETTINGS_FILE": str(path), "TRACEDIFF_INGEST_TOKENS": "from-env",
                                      "TRACEDIFF_MAX_DEPTH": "10"})
    assert (settings["INGEST_TOKENS"], settings["RETENTION_DAYS"], settings["MAX_DEPTH"]) == ("from-file", 7, 10)


@pytest.mark.parametrize("text", ["TRACEDIFF_INGEST_TOKEN=typo\n", "INGEST_TOKENS=x\n", "TRACEDIFF_REDACT\n"])
def test_a_settings_file_line_naming_no_setting_is_refused_with_its_line(tmp_path, text):
    path = tmp_path / "tracediff.env"
    path.write_text("# ok\n" + text)
    with pytest.raises(SettingError, match=f"{path}:2"):
        load_settings(environ={"TRACEDIFF_SETTINGS_FILE": str(path)})


def test_a_missing_settings_file_is_refused():
    with pytest.raises(SettingError, match="TRACEDIFF_SETTINGS_FILE"):
        load_settings(environ={"TRACEDIFF_SETTINGS_FILE": "/nonexistent/tracediff.env"})
