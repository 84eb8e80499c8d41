"""The shipper configurations in docs/shippers.md are the ones tested.

And keep under the limits."""

import re

import yaml
from conftest import ROOT

from webapp.config import load_settings

DOC = (ROOT / "docs" / "shippers.md").read_text()
NGINX = (ROOT / "docs" / "nginx" / "tracediff.conf").read_text()


def section(title: str) -> str:
    return DOC.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def code_block(text: str) -> str:
    return re.search(r"```(?:yaml|toml|ini)?\n(.*?)```", text, re.S).group(1)


def nginx_body_limit() -> int:
    size = re.search(r"client_max_body_size (\d+)m;", NGINX).group(1)
    return int(size) * 1024 * 1024


def test_the_syslog_ng_configuration_shown_is_the_one_the_test_suite_runs():
    template = (ROOT / "tests" / "fixtures" / "syslog-ng.conf.tmpl").read_text()
    assert code_block(section("syslog-ng")) == template


def test_syslog_ng_batches_stay_under_tracediffs_and_the_proxys_body_limits_and_retry_soon():
    config = code_block(section("syslog-ng"))
    batch = int(re.search(r"batch-bytes\((\d+)\)", config).group(1))
    message = int(re.search(r"log-msg-size\((\d+)\)", config).group(1))
    # a batch passes batch-bytes by one message (and its delimiters)
    worst = batch + message + 1024
    assert worst < min(load_settings({})["MAX_BODY_BYTES"], nginx_body_limit())
    assert int(re.search(r"time-reopen\((\d+)\)", config).group(1)) <= 5


def test_the_nginx_body_limit_matches_tracediffs():
    assert nginx_body_limit() == load_settings({})["MAX_BODY_BYTES"]


def test_the_collector_configuration_queues_on_disk_and_retries_without_end():
    config = yaml.safe_load(code_block(section("OpenTelemetry Collector")))
    pipeline = config["service"]["pipelines"]["traces"]
    for kind in ("receivers", "processors", "exporters"):
        for name in pipeline[kind]:
            assert name in config[kind], f"{kind}: {name} is used but not declared"
    exporter = config["exporters"]["otlphttp/tracediff"]
    queue = exporter["sending_queue"]
    assert queue["enabled"] is True and queue["storage"] in config["service"]["extensions"]
    assert (
        queue["storage"] in config["extensions"]
        and config["extensions"][queue["storage"]]["directory"]
    )
    assert exporter["retry_on_failure"]["enabled"] is True
    assert exporter["retry_on_failure"]["max_elapsed_time"] == 0
    # the exporter appends it
    assert not exporter["endpoint"].rstrip("/").endswith("/v1/traces")
    batch = config["processors"]["batch"]
    # 3 snapshots per span at most
    assert batch["send_batch_max_size"] * 3 <= load_settings({})["MAX_EVENTS"]


def test_fluentd_chunks_stay_under_tracediffs_limits():
    config = code_block(section("Fluentd").replace("```\n<source>", "```yaml\n<source>", 1))
    records = int(re.search(r"chunk_limit_records (\d+)", config).group(1))
    size = re.search(r"chunk_limit_size (\d+)m", config).group(1)
    assert records <= load_settings({})["MAX_EVENTS"]
    assert int(size) * 1024 * 1024 < min(load_settings({})["MAX_BODY_BYTES"], nginx_body_limit())
