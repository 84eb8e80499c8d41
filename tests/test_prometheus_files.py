"""docs/prometheus/.

The scrape config and the alert rules check with promtool, and name metrics that exist.

promtool comes with Debian's `prometheus` package; without it the rules' structure is checked
instead (and the skip says so).
"""

import re
import shutil
import subprocess

import pytest
import yaml
from conftest import ROOT

from webapp import create_app

FOLDER = ROOT / "docs" / "prometheus"
RULES = FOLDER / "tracediff-rules.yml"


def promtool() -> str:
    found = shutil.which("promtool")
    if found is None:
        pytest.skip(
            "promtool is not installed (Debian: apt-get install prometheus); the structure test "
            "still runs"
        )
    return found


@pytest.mark.slow
def test_the_alert_rules_pass_promtool():
    done = subprocess.run(
        [promtool(), "check", "rules", str(RULES)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and "SUCCESS" in done.stdout, done.stdout + done.stderr


@pytest.mark.slow
def test_the_scrape_config_passes_promtool_and_loads_the_rules():
    done = subprocess.run(
        [promtool(), "check", "config", "--syntax-only", "prometheus.yml"],
        cwd=FOLDER,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    config = yaml.safe_load((FOLDER / "prometheus.yml").read_text())
    assert config["rule_files"] == [RULES.name]
    [job] = config["scrape_configs"]
    assert job["job_name"] == "tracediff" and job["metrics_path"] == "/metrics"


def test_every_rule_has_an_expression_a_severity_and_a_summary():
    groups = yaml.safe_load(RULES.read_text())["groups"]
    rules = [rule for group in groups for rule in group["rules"]]
    assert len(rules) >= 8
    for rule in rules:
        assert set(rule) <= {"alert", "expr", "for", "labels", "annotations"}, rule
        assert rule["expr"].strip() and rule["labels"]["severity"] in {"page", "ticket"}
        assert rule["annotations"]["summary"]


def test_every_metric_the_rules_name_is_one_tracediff_exports(tmp_path):
    client = create_app(
        {"TESTING": True, "DATABASE": str(tmp_path / "m.db"), "ANALYZER": "off"}
    ).test_client()
    text = client.get("/metrics").get_data(as_text=True)
    exported = set(re.findall(r"^# TYPE (\S+) (\w+)", text, re.M))
    names = {name for name, _ in exported}
    names |= {f"{name}_total" for name, kind in exported if kind == "counter"}
    named = set(re.findall(r"\b((?:tracediff|process)_[a-z_]+)", RULES.read_text()))
    assert named and named <= names, sorted(named - names)
