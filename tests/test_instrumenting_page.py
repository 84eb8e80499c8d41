"""docs/instrumenting.md shows the recipes exactly as the tests run them.

And the README leads to it."""

import re
from pathlib import Path

import pytest
from recipe_runs import RECIPES, ROOT

PAGE = ROOT / "docs" / "instrumenting.md"
PASTE_FROM, PASTE_TO = "tracediff: paste from here", "tracediff: paste to here"
RUNNERS = ("test_recipes.py", "test_recipes_mcp.py")


def paste_part(path: Path) -> str:
    """Return the lines between a recipe's paste markers."""
    lines = path.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if PASTE_FROM in line)
    end = next(i for i, line in enumerate(lines) if PASTE_TO in line)
    return "\n".join(lines[start + 1 : end]).strip("\n")


RECIPE_FILES = sorted(p.name for p in RECIPES.iterdir() if p.is_file())


@pytest.mark.parametrize("name", RECIPE_FILES)
def test_the_page_shows_each_recipes_paste_part_exactly_as_the_tested_file_has_it(name):
    page = PAGE.read_text()
    assert f"](recipes/{name})" in page
    blocks = re.findall(r"```\w*\n(.*?)\n```", page, flags=re.S)
    assert paste_part(RECIPES / name) in blocks


@pytest.mark.parametrize("name", RECIPE_FILES)
def test_each_paste_part_is_short_enough_to_paste(name):
    code = [line for line in paste_part(RECIPES / name).splitlines() if line.strip()]
    assert len(code) <= (80 if name.endswith(".swift") else 50), len(code)


@pytest.mark.parametrize("name", RECIPE_FILES)
def test_every_recipe_is_run_by_a_test_here_or_says_it_is_not_run_in_ci(name):
    tests = "".join((Path(__file__).parent / runner).read_text() for runner in RUNNERS)
    executed = re.findall(r'RECIPES / "([\w.]+)"\)\]', tests)
    assert name in executed or "NOT RUN IN CI" in (RECIPES / name).read_text()


def test_the_readme_quick_start_points_to_the_page_in_one_sentence_after_its_two_commands():
    readme = (ROOT / "README.md").read_text()
    quick = readme.split("## Quick start", 1)[1].split("Post a snapshot", 1)[0]
    assert len(re.findall(r"```sh\n", quick)) == 2
    after = quick.rsplit("```", 1)[1]
    assert "send your own agent's calls" in after.lower() and "](docs/instrumenting.md)" in after
