"""What `tracediff check` prints and writes.

Text, GitHub Actions annotations, JSON, JUnit XML."""

from ...common import jsontext
from ...common.stages import missing, spelt
from ...common.words import counted
from ...reports.text import SNAPSHOT_NAMES, end_text, format_check, visible
from .locate import line_of
from .run import BROKEN, FAILED, PASSED, SKIPPED

# Characters XML 1.0 cannot hold at all, beyond the controls `visible` already escapes.
_NOT_XML = {0xFFFE: "\\ufffe", 0xFFFF: "\\uffff"}
# per call: GitHub shows only the first few of a step anyway
MAX_ANNOTATIONS = 50
# info findings never fail a check: no annotation
LEVELS = {"error": "error", "warning": "warning"}


def counts_line(outcomes: list[dict], noun: str = "call") -> str:
    """One line of counts: passed, failed, could not be checked, not linted.

    How many calls (or tools, for `tracediff lint`) passed, failed, could not be checked (and, when
    some were, were not linted)."""
    total = {
        kind: sum(o["outcome"] == kind for o in outcomes)
        for kind in (PASSED, FAILED, BROKEN, SKIPPED)
    }
    skipped = f", {total[SKIPPED]} not linted" if total[SKIPPED] else ""
    return (
        f"{counted(len(outcomes), noun)}: {total[PASSED]} passed, {total[FAILED]} failed, "
        f"{total[BROKEN]} could not be checked{skipped}"
    )


def text(outcomes: list[dict], folders: bool, noun: str = "call", told=()) -> str:
    """The terminal report.

    The analysis of one call, or a line per folder and the counts; the findings of the kinds in
    `told` are listed under a passing folder too."""
    if not folders:
        gap = not_checked(outcomes[0]["case"])
        return visible(format_check(outcomes[0]["result"]) + (f"\n{gap}" if gap else ""))
    lines = []
    for o in outcomes:
        name = o["case"].name
        if o["outcome"] == BROKEN:
            lines.append(f"BROKEN {name}: {o['case'].error}")
        elif o["outcome"] == SKIPPED:
            lines.append(f"SKIP   {name}: {o['case'].error}")
        elif o["outcome"] == FAILED:
            lines.append(_verdict("FAIL", o["case"]))
            lines += [f"  {line}" for line in format_check(o["result"]).splitlines()]
        else:
            lines.append(_verdict("PASS", o["case"]))
            shown = [f for f in (o["result"] or {}).get("findings", ()) if f["kind"] in told]
            lines += [f"  {f['severity']} {f['kind']}: {f['message']}" for f in shown]
    lines.append(counts_line(outcomes, noun))
    return visible("\n".join(lines))


def not_given(case) -> list[str]:
    """Return the core stages a case was not given.

    None for a case of no snapshots at all (a tool of `tracediff lint`)."""
    if not case.snapshots:
        return []
    return missing({name for name, snap in case.snapshots.items() if snap is not None})


def not_checked(case) -> str:
    """Say which stages were checked when some core one was not given, else ""."""
    lacking = not_given(case)
    if not lacking:
        return ""
    given = [name for name, snap in case.snapshots.items() if snap is not None]
    return f"checked {spelt(given, 'and')} only: {spelt(lacking, 'and')} not given"


def _verdict(word: str, case) -> str:
    """The verdict line of a folder, saying what was not checked."""
    gap = not_checked(case)
    return f"{word:<6} {case.name}" + (f" ({gap})" if gap else "")


def as_json(outcomes: list[dict], folders: bool) -> str:
    """The analysis as JSON.

    The result of one call, or every folder's outcome and result."""
    if not folders:
        document = outcomes[0]["result"]
    else:
        document = {
            "calls": [
                {
                    "folder": o["case"].name,
                    "outcome": o["outcome"],
                    "error": o["case"].error,
                    # the core stages the folder lacked, checked no further
                    "not_given": [] if o["outcome"] == BROKEN else not_given(o["case"]),
                    "result": o["result"],
                }
                for o in outcomes
            ],
            "summary": counts_line(outcomes),
        }
    return jsontext.dumps(document, option=jsontext.OPT_INDENT_2).decode()


def github(
    outcomes: list[dict], title: str = "tracediff check", noun: str = "call", locate=None
) -> str:
    """GitHub Actions workflow commands.

    An annotation per failing finding, then the counts. `locate(outcome, finding)` may say which
    (file, line) a finding lands on; else the file of its end's snapshot."""
    lines = []
    for o in outcomes:
        notes = list(_annotations(o, title, locate))
        lines += notes[:MAX_ANNOTATIONS]
        if len(notes) > MAX_ANNOTATIONS:
            lines.append(
                _command(
                    "notice",
                    o["case"].name,
                    "tracediff",
                    f"{counted(len(notes) - MAX_ANNOTATIONS, 'more finding')} not shown",
                )
            )
    lines.append(counts_line(outcomes, noun))
    return "\n".join(lines)


def _annotations(outcome: dict, title: str, locate=None):
    case, result = outcome["case"], outcome["result"]
    if outcome["outcome"] == BROKEN:
        yield _command("error", case.error_file or case.name, title, case.error)
        return
    if outcome["outcome"] == SKIPPED:
        yield _command("notice", case.error_file or case.name, title, f"{case.name}: {case.error}")
        return
    for name in SNAPSHOT_NAMES:
        file = case.files.get(name)
        for error in (result["validation"].get(name) or {}).get("errors", []):
            yield _command(
                "error",
                file or case.name,
                "schema",
                f"{name} {error['path'] or '(root)'}: {error['message']}",
                line_of(file, error["path"]),
            )
    for finding in result["findings"]:
        level = LEVELS.get(finding["severity"])
        if level:
            end = finding.get("right") or finding.get("left") or {}
            file = case.files.get(end.get("snapshot"))
            file, line = (
                locate(outcome, finding) if locate else (file, line_of(file, end.get("path")))
            )
            where = f"{end_text(finding.get('left'))} -> {end_text(finding.get('right'))}"
            yield _command(
                level, file or case.name, finding["kind"], f"{finding['message']} ({where})", line
            )


def _command(level: str, file: str, title: str, message: str, line: int | None = None) -> str:
    """One workflow command, its data and properties escaped as the runner expects."""
    at = f",line={line}" if line else ""
    return (
        f"::{level} file={_property(file)}{at},title={_property(title)}::{_data(visible(message))}"
    )


def _data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(value: str) -> str:
    return _data(visible(str(value))).replace(":", "%3A").replace(",", "%2C")


def _xml(text: str) -> str:
    return visible(text).translate(_NOT_XML)


def junit(outcomes: list[dict], title: str = "tracediff check") -> bytes:
    """JUnit XML: a test case per call, a failure with its findings.

    An error when it could not be read."""
    # here: only --junit needs it
    from xml.etree import ElementTree

    failures = sum(o["outcome"] == FAILED for o in outcomes)
    errors = sum(o["outcome"] == BROKEN for o in outcomes)
    skipped = str(sum(o["outcome"] == SKIPPED for o in outcomes))
    seconds = f"{sum(o['seconds'] for o in outcomes):.3f}"
    counts = {
        "tests": str(len(outcomes)),
        "failures": str(failures),
        "errors": str(errors),
        "time": seconds,
    }
    suites = ElementTree.Element("testsuites", name=title, **counts)
    suite = ElementTree.SubElement(suites, "testsuite", name=title, skipped=skipped, **counts)
    for o in outcomes:
        case = o["case"]
        tool = (case.contract or {}).get("name") or "tracediff"
        element = ElementTree.SubElement(
            suite,
            "testcase",
            classname=_xml(tool),
            name=_xml(case.name),
            time=f"{o['seconds']:.3f}",
        )
        if o["outcome"] == BROKEN:
            ElementTree.SubElement(element, "error", type="input", message=_xml(case.error))
        elif o["outcome"] == SKIPPED:
            ElementTree.SubElement(element, "skipped", message=_xml(case.error))
        elif o["outcome"] == FAILED:
            report = _xml(format_check(o["result"]))
            failure = ElementTree.SubElement(
                element, "failure", type="findings", message=report.splitlines()[-1]
            )
            failure.text = report
    ElementTree.indent(suites)
    return ElementTree.tostring(suites, encoding="utf-8", xml_declaration=True) + b"\n"
