"""The README is the contract of the settings, the finding kinds and the quick start."""

import re

from conftest import ROOT

from webapp.analysis import FINDING_KINDS
from webapp.config import SETTINGS

README = (ROOT / "README.md").read_text()


def test_every_setting_is_documented_with_its_environment_variable():
    for setting in SETTINGS:
        assert f"`TRACEDIFF_{setting.name}`" in README, setting.name


def test_every_finding_kind_is_documented():
    for kind, _ in FINDING_KINDS:
        assert f"`{kind}`" in README, kind


def test_the_quick_start_is_two_commands_and_ci_runs_the_test_command():
    quick = README.split("## Quick start", 1)[1].split("Post a snapshot", 1)[0]
    commands = re.findall(r"```sh\n(.+?)\n```", quick)
    assert commands == ["pip install -e . && tracediff serve --demo", "pip install -e '.[test]' && python -m pytest"]
    assert commands[1] in (ROOT / ".ci" / "run").read_text()


def test_every_command_and_every_lint_mismatch_kind_is_documented():
    from webapp.cli.main import main
    from webapp.contracts.lint import KINDS

    for name in main.commands:
        assert f"`tracediff {name}" in README, name
    for kind in KINDS:
        assert f"| `{kind}` |" in README, kind
