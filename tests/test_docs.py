"""The docs site: the contract of settings, finding kinds and commands.

And it builds.

Each reference page keeps the assertions the README held before the reference moved into docs/;
the generated parts (docs/cli.md from `--help`, the settings table) are checked with cog, as
sqlite-utils checks its CLI reference; every relative link of the README and of the pages
resolves, anchors included.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cogapp import Cog
from conftest import ROOT
from markdown.extensions.toc import slugify

from webapp.analysis import FINDING_KINDS
from webapp.config import SETTINGS

DOCS = ROOT / "docs"
GENERATED = ("cli.md", "settings.md")


def page(name: str) -> str:
    """Return the text of a page of docs/."""
    return (DOCS / name).read_text(encoding="utf-8")


def test_every_setting_is_documented_with_its_environment_variable():
    settings = page("settings.md")
    for setting in SETTINGS:
        assert f"`TRACEDIFF_{setting.name}`" in settings, setting.name


def test_every_finding_kind_is_documented():
    findings = page("findings.md")
    for kind, _ in FINDING_KINDS:
        assert f"`{kind}`" in findings, kind


def test_every_command_and_every_lint_mismatch_kind_is_documented():
    from webapp.cli.main import main
    from webapp.contracts.lint import KINDS

    commands = page("cli.md")
    for name in main.commands:
        assert f"`tracediff {name}" in commands, name
        assert f"\n### tracediff {name}\n" in commands, name
    contracts = page("contracts.md")
    for kind in KINDS:
        assert f"| `{kind}` |" in contracts, kind


@pytest.mark.parametrize("name", GENERATED)
def test_the_generated_pages_are_what_the_code_says(name, capsys):
    # cog --check: the page's generated blocks equal what their code prints now (a new command,
    # option or setting fails here until `cog -r docs/cli.md docs/settings.md` is run)
    status = Cog().main(["cog", "--check", str(DOCS / name)])
    output = capsys.readouterr().out
    assert status == 0, f"docs/{name} is out of date: run `cog -r docs/{name}`\n{output}"


def help_block(reference: str, command: str) -> str:
    """Return the `--help` text docs/cli.md shows under `### tracediff COMMAND`."""
    section = reference.split(f"\n### {command}\n\n```text\n", 1)[1]
    return section.split("\n```\n", 1)[0]


@pytest.mark.slow
@pytest.mark.parametrize("command", ["tracediff", "tracediff tools import", "tracediff check"])
def test_the_cli_reference_is_what_the_installed_command_prints(command):
    shown = subprocess.run(
        [shutil.which("tracediff"), *command.split()[1:], "--help"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "COLUMNS": "80"},
    ).stdout
    assert help_block(page("cli.md"), command) == shown.rstrip()


@pytest.mark.slow
def test_the_site_builds_strictly(tmp_path):
    # strict: a broken link or anchor, a link out of docs/ or a page left out of the nav fails it
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert built.returncode == 0, built.stderr
    for name in ("", "getting-started", "cli", "settings", "api", "findings", "architecture"):
        assert (tmp_path / "site" / name / "index.html").is_file(), name


def test_every_page_is_in_the_nav():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for path in sorted(DOCS.glob("*.md")):
        assert f": {path.name}\n" in nav, path.name


# -- links ---------------------------------------------------------------------------------------

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)\)")
HTML_ID = re.compile(r"""<a\s+(?:id|name)="([^"]+)"\s*>""")
FENCE = re.compile(r"^\s*(```|~~~)")


def prose_lines(path: Path):
    """Yield the lines of a Markdown file outside its fenced code blocks."""
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            yield line


def heading_text(raw: str) -> str:
    """Return a heading as it renders to text: code, links and emphasis reduced to their words."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", raw)
    return re.sub(r"`|\*\*", "", text)


def anchors(path: Path) -> set[str]:
    """Return the ids of a Markdown page: its headings' slugs as MkDocs makes them, and <a id>s."""
    found, seen = set(), {}
    for line in prose_lines(path):
        found.update(HTML_ID.findall(line))
        heading = re.match(r"#{1,6}\s+(.*?)\s*$", line)
        if heading:
            slug = slugify(heading_text(heading.group(1)), "-")
            # a repeated heading gets _1, _2 ... as Python-Markdown's toc numbers them
            found.add(slug if slug not in seen else f"{slug}_{seen[slug]}")
            seen[slug] = seen.get(slug, 0) + 1
    return found


def relative_links(path: Path):
    """Yield the relative link targets of a Markdown file (links and images outside code)."""
    for line in prose_lines(path):
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            if not re.match(r"[a-z][a-z0-9+.-]*:", target):
                yield target


MARKDOWN = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


@pytest.mark.parametrize("path", MARKDOWN, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves_to_a_file_and_its_anchor(path):
    broken = []
    for target in relative_links(path):
        file, _, anchor = target.partition("#")
        where = (path.parent / file).resolve() if file else path
        if not where.exists():
            broken.append(f"{target}: no such file")
        elif anchor and where.suffix == ".md" and anchor not in anchors(where):
            broken.append(f"{target}: no such anchor in {where.relative_to(ROOT)}")
    assert not broken, broken


def test_the_link_checker_sees_links_and_anchors():
    readme_links = set(relative_links(ROOT / "README.md"))
    assert "docs/screenshots/trace.png" in readme_links
    assert "docs/api.md#the-ingest-envelope-version-1" in readme_links
    assert {"settings", "observed-schemas", "quick-start"} <= anchors(ROOT / "README.md")
    assert {"the-way-back-the-result", "the-read-api"} <= anchors(DOCS / "api.md")
    assert "tracediff-tools-import" in anchors(DOCS / "cli.md")


# the checkout's own paths a page names; bench/out/ is what the benchmarks write, webapp/docs/ the
# wheel's copy
NAMED_PATH = re.compile(r"`((?:webapp|tests|bench)/[\w./-]*\w/?)`")
NOT_IN_A_CHECKOUT = ("bench/out/", "webapp/docs/")


@pytest.mark.parametrize("path", MARKDOWN, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_file_or_folder_a_page_names_exists(path):
    named = set(NAMED_PATH.findall(path.read_text(encoding="utf-8")))
    missing = [n for n in named if not n.startswith(NOT_IN_A_CHECKOUT) and not (ROOT / n).exists()]
    assert not missing, f"{path.name} names what moved or went: {sorted(missing)}"


def _command(path: list[str]):
    """Return the deepest click command the words name."""
    import click

    from webapp.cli import main

    command = main
    for word in path:
        if not isinstance(command, click.Group) or word not in command.commands:
            break
        command = command.commands[word]
    return command


def test_the_cli_table_brackets_every_optional_option():
    unbracketed = []
    for line in (DOCS / "cli.md").read_text().splitlines():
        if not line.startswith("| `tracediff ") or line.startswith("| `tracediff --"):
            continue
        synopsis = line.split("`")[1]
        command, depth = _command(synopsis.split()[1:]), 0
        for token in re.findall(r"\[|\]|--[a-z][a-z-]*", synopsis):
            depth += {"[": 1, "]": -1}.get(token, 0)
            option = next((p for p in command.params if token in getattr(p, "opts", ())), None)
            if token.startswith("--") and depth == 0 and option is not None and not option.required:
                unbracketed.append(f"{synopsis.split(' [')[0]}: {token}")
    assert unbracketed == []
