"""Settings from TRACEDIFF_* variables.

A value a setting cannot take is refused, never guessed."""

import pytest

from webapp.config import SettingError, load_settings


@pytest.mark.parametrize(
    "name, raw",
    [
        ("REDACT", "enabled"),
        ("REDACT", ""),
        ("MAX_DEPTH", "abc"),
        ("SYNCHRONOUS", "bogus"),
        ("RETENTION_DAYS", "7d"),
        ("ANALYZER", "thread"),
    ],
)
def test_a_value_a_setting_cannot_take_is_refused_with_its_name(name, raw):
    with pytest.raises(SettingError, match=f"TRACEDIFF_{name}"):
        load_settings(environ={f"TRACEDIFF_{name}": raw})


@pytest.mark.parametrize(
    "raw, expected", [("1", True), ("ON", True), ("yes", True), ("0", False), ("off", False)]
)
def test_redaction_is_switched_only_by_a_clear_yes_or_no(raw, expected):
    assert load_settings(environ={"TRACEDIFF_REDACT": raw})["REDACT"] is expected


def test_choices_are_read_in_any_case_and_kept_in_their_own():
    settings = load_settings(
        environ={"TRACEDIFF_SYNCHRONOUS": "normal", "TRACEDIFF_ANALYZER": "OFF"}
    )
    assert (settings["SYNCHRONOUS"], settings["ANALYZER"]) == ("NORMAL", "off")


def test_the_settings_file_wins_over_the_environment_and_skips_comments(tmp_path):
    path = tmp_path / "tracediff.env"
    path.write_text(
        "# shipper tokens\n\nTRACEDIFF_INGEST_TOKENS=from-file\nexport "
        "TRACEDIFF_RETENTION_DAYS='7'\n"
    )
    settings = load_settings(
        environ={
            "TRACEDIFF_SETTINGS_FILE": str(path),
            "TRACEDIFF_INGEST_TOKENS": "from-env",
            "TRACEDIFF_MAX_DEPTH": "10",
        }
    )
    assert (settings["INGEST_TOKENS"], settings["RETENTION_DAYS"], settings["MAX_DEPTH"]) == (
        "from-file",
        7,
        10,
    )


@pytest.mark.parametrize(
    "text", ["TRACEDIFF_INGEST_TOKEN=typo\n", "INGEST_TOKENS=x\n", "TRACEDIFF_REDACT\n"]
)
def test_a_settings_file_line_naming_no_setting_is_refused_with_its_line(tmp_path, text):
    path = tmp_path / "tracediff.env"
    path.write_text("# ok\n" + text)
    with pytest.raises(SettingError, match=f"{path}:2"):
        load_settings(environ={"TRACEDIFF_SETTINGS_FILE": str(path)})


def test_a_missing_settings_file_is_refused():
    with pytest.raises(SettingError, match="TRACEDIFF_SETTINGS_FILE"):
        load_settings(environ={"TRACEDIFF_SETTINGS_FILE": "/nonexistent/tracediff.env"})


@pytest.mark.parametrize(
    "name",
    [
        "MAX_CLOCK_SKEW_S",
        "RETENTION_DAYS",
        "MIN_FREE_MB",
        "READY_MIN_FREE_MB",
        "ANALYSIS_BUDGET",
        "BODY_TIMEOUT",
        "MAX_BODY_BYTES",
    ],
)
def test_a_negative_count_size_or_duration_is_refused_with_its_name(name):
    with pytest.raises(SettingError, match=f"TRACEDIFF_{name}='-1': must be 0 or more"):
        load_settings(environ={f"TRACEDIFF_{name}": "-1"})
    # zero keeps its documented meaning
    assert load_settings(environ={f"TRACEDIFF_{name}": "0"})[name] == 0


@pytest.mark.slow
def test_serve_refuses_a_negative_setting_in_one_line_before_it_starts(tmp_path):
    from conftest import free_port
    from test_upkeep import tracediff

    for name, raw in [
        ("MAX_CLOCK_SKEW_S", "-1"),
        ("RETENTION_DAYS", "-1"),
        ("MIN_FREE_MB", "-5"),
        ("WORKERS", "0"),
    ]:
        refused = tracediff(
            "serve",
            "--port",
            str(free_port()),
            "--db",
            str(tmp_path / "t.db"),
            env={f"TRACEDIFF_{name}": raw},
            timeout=30,
        )
        assert refused.returncode != 0 and f"TRACEDIFF_{name}={raw!r}" in refused.stderr, (
            refused.stderr
        )
        assert refused.stderr.strip().count("\n") == 0, refused.stderr
