"""The README is a front page.

The quick start CI runs, a first call that works, a true map."""

import json
import re

from conftest import ROOT

README = (ROOT / "README.md").read_text()


def quick_start() -> str:
    """Return the README's quick start up to its first call."""
    return README.split("## Quick start", 1)[1].split("Post a snapshot", 1)[0]


def test_the_quick_start_is_two_commands_and_ci_runs_the_test_command():
    commands = re.findall(r"```sh\n(.+?)\n```", quick_start())
    assert commands == [
        "pip install -e . && tracediff serve --demo",
        "pip install -e '.[test]' && python -m pytest",
    ]
    assert commands[1] in (ROOT / ".ci" / "run").read_text()


def test_the_readme_is_a_front_page_not_the_manual():
    assert len(README.splitlines()) < 200
    assert "](docs/screenshots/trace.png)" in README


def test_the_first_call_is_accepted_as_the_readme_says(client):
    first = README.split("Post a snapshot", 1)[1].split("## ", 1)[0]
    body = re.search(r"curl -s (\S+) -d '(.+?)'\n", first, flags=re.S)
    url, event = body.group(1), json.loads(body.group(2))
    answer = client.post(url.removeprefix("http://127.0.0.1:8000"), json=event)
    assert answer.status_code == 200
    shown = re.search(r"`(\{\"accepted\".+?\})`", first).group(1)
    assert answer.get_json() == json.loads(shown)
    trace = re.search(r"then open <http://127.0.0.1:8000(/traces/\w+)>", first).group(1)
    page = client.get(trace).get_data(as_text=True)
    assert client.get(trace).status_code == 200 and event["tool"] in page


def test_the_folder_map_names_every_package_of_webapp_and_nothing_else():
    folders = README.split("## How it fits together", 1)[1].split("```", 2)[1]
    for package in sorted(p.parent.name for p in (ROOT / "webapp").glob("*/__init__.py")):
        assert re.search(rf"(^|[ /]){package}/", folders, flags=re.M), package
    for named in re.findall(r"^(webapp/[\w/.]+)", folders, flags=re.M):
        assert (ROOT / named).exists(), named
