"""House style read from the source with `ast`: short docstring summaries.

A docstring opens with a summary line of at most SUMMARY_MAX characters ending with a period; any
detail follows after a blank line (PEP 257), so `help()`, the CLI's command lists and editors show
a whole sentence. In tests/ only the modules' docstrings are held to it: a test's own docstring
states its case in full."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHECKED = ("webapp", "bench")
SUMMARY_MAX = 80
DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def summary_problem(docstring: str) -> str | None:
    """Say what is wrong with a docstring's summary line, or None when nothing is."""
    lines = docstring.strip().splitlines()
    first = lines[0].strip()
    if len(first) > SUMMARY_MAX:
        return f"summary of {len(first)} characters (at most {SUMMARY_MAX})"
    if not first.endswith((".", "?", "!")):
        return "summary not ending with a period"
    if len(lines) > 1 and lines[1].strip():
        return "summary not followed by a blank line"
    return None


def docstring_problems(source: str, kinds=DOCUMENTED) -> list[tuple[int, str, str]]:
    """Return (line, name, problem) of each docstring in a module's source whose summary is off.

    `kinds`: the nodes whose docstrings count (ast.Module alone: the module's own)."""
    problems = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, kinds):
            continue
        docstring = ast.get_docstring(node)
        problem = summary_problem(docstring) if docstring else None
        if problem:
            line = node.body[0].lineno
            problems.append((line, getattr(node, "name", "<module>"), problem))
    return problems


def test_every_docstring_opens_with_a_short_summary_line():
    """Every docstring of webapp/ and bench/ has a summary line of at most 80 characters."""
    found = [
        f"{path.relative_to(ROOT)}:{line} {name}: {problem}"
        for folder in CHECKED
        for path in sorted((ROOT / folder).rglob("*.py"))
        for line, name, problem in docstring_problems(path.read_text(encoding="utf-8"))
    ]
    assert not found, "\n".join(found)


def test_every_test_module_opens_with_a_short_summary_line():
    """Every module of tests/ introduces itself with a summary line of at most 80 characters."""
    found = [
        f"{path.relative_to(ROOT)}: {problem}"
        for path in sorted((ROOT / "tests").rglob("*.py"))
        if "fixtures" not in path.parts
        for _, _, problem in docstring_problems(path.read_text(encoding="utf-8"), ast.Module)
    ]
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        (
            '"""Return the documents an analysed call\'s rows are read against, and whether its '
            'request\nis located."""',
            "summary of",
        ),
        ('def f():\n    """Pair two fields\n\n    by name."""\n', "not ending with a period"),
        (
            'class C:\n    """Pair two fields of a call.\n    Then walk below them."""\n',
            "not followed by a blank line",
        ),
    ],
)
def test_the_check_sees_a_long_or_unseparated_summary(source, problem):
    """The check itself: a long summary, one without a period, one run into its detail."""
    [(_, _, said)] = docstring_problems(source)
    assert said.startswith(problem) or problem in said


def test_the_check_lets_a_summary_with_detail_through():
    """A short summary, a blank line, then detail of any length passes."""
    source = 'def f():\n    """Pair two fields.\n\n    ' + "Detail. " * 30 + '"""\n'
    assert docstring_problems(source) == []
