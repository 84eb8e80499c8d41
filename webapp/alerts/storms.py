"""No alert storms.

Which problem changes alert one by one, which are quiet, and which fold into a summary.

A problem is news at its first live call (own time within the last hour): the store drops the
opening of a problem that only older calls showed (a backfill of old logs: it opens quietly) and
says `new` when its first live call comes later, once (webapp/store/escalation.py). A problem opened
by a re-analysis (`reanalysed`: only calls grouped again from the snapshots they were grouped from
before showed it) never alerts on its own; such problems fold into one summary. When more than a few
problems open at once (a new tool's first hour), one summary says so instead of one each. Each rule
gets its own summary, of the problems that match it; a summary that waits in the outbox takes in the
rule's next ones (`fold`), so a run of many batches sends one (webapp/pipeline/telling.py applies
it).
"""

from datetime import UTC, datetime

from ..problems.states import shown
from .rules import matches

# more new problems than this in one batch, or one rule's minute, go as one summary
SUMMARY_AT = 5
SUMMARY_WINDOW_S = 60
# problems a summary lists; its count says how many it folds
LISTED = 20
# the outbox subject of summaries: one waiting per rule takes in the next ones
SUBJECT = "summary"
# what a problem's one-line message counts (store/alert_facts.py); the sender takes it out
FACTS = "_line"
# every problem a summary folds, listed or not: read again when it is sent (settle.py)
IDS = "_ids"


def plan(changes: list[tuple[str, dict]]) -> list[tuple[str, str, dict]]:
    """Turn (event, problem) changes into (event, subject, data) messages to write.

    A summary's data holds every problem it folds, for `for_rule` to pick each rule's own. News
    comes last: a quiet problem whose first live calls escalate it is told as escalating (which says
    more) to a rule that wants both, since a rule gets one message per problem and batch
    (webapp/pipeline/telling.py). Each problem, as the store keeps it, is told in the state a person
    reads (new or ongoing for an open one)."""
    now = datetime.now(UTC)
    changes = [(event, shown(problem, now)) for event, problem in changes]
    fresh_new = [p for event, p in changes if event == "new"]
    reanalysed = [p for event, p in changes if event == "reanalysed"]
    one_by_one = len(fresh_new) <= SUMMARY_AT
    out = [(event, p["id"], p) for event, p in changes if event not in ("new", "reanalysed")]
    out += [("new", p["id"], p) for p in fresh_new] if one_by_one else []
    folded = reanalysed + ([] if one_by_one else fresh_new)
    if folded:
        out.append(
            (
                "new",
                SUBJECT,
                {"summary": True, "reanalysis": len(folded) == len(reanalysed), "problems": folded},
            )
        )
    return out


def for_rule(rule: dict, planned: dict) -> dict | None:
    """Return a rule's summary of the planned one.

    The problems that match its filters, or None when none does."""
    problems = [p for p in planned["problems"] if matches(rule, "new", p)]
    return summary_of([_listed(p) for p in problems], planned["reanalysis"]) if problems else None


def fold(waiting: dict, more: dict) -> dict:
    """Fold a rule's next summary into the one still waiting in the outbox.

    One message, nothing lost."""
    ids = _ids(waiting)
    listed = waiting["problems"] + [p for p in more["problems"] if p["id"] not in set(ids)]
    ids += [i for i in _ids(more) if i not in set(ids)]
    return _summary(len(ids), listed[:LISTED], waiting["reanalysis"] and more["reanalysis"], ids)


def summary_of(problems: list[dict], by_reanalysis: bool) -> dict:
    """Return the summary of these problems (each as the API lists it).

    Their count, the first LISTED of them."""
    return _summary(len(problems), problems[:LISTED], by_reanalysis, [p["id"] for p in problems])


def _ids(summary: dict) -> list[str]:
    """Every problem a summary folds, listed or not.

    A summary written before it kept them: the listed ones."""
    return list(summary.get(IDS) or [p["id"] for p in summary["problems"]])


def _summary(count: int, problems: list[dict], by_reanalysis: bool, ids: list[str]) -> dict:
    worst = "error" if any(p.get("severity") == "error" for p in problems) else "warning"
    how = " by a re-analysis" if by_reanalysis else " at once"
    return {
        "summary": True,
        "title": f"{count} new problem{'s' if count != 1 else ''}{how}",
        "count": count,
        "severity": worst,
        "tool": _shared(problems, "tool"),
        "kind": _shared(problems, "kind"),
        "reanalysis": by_reanalysis,
        "problems": problems,
        "permalink_path": "/problems",
        IDS: ids,
    }


def _shared(problems: list[dict], name: str):
    values = {p.get(name) for p in problems}
    return values.pop() if len(values) == 1 else None


def _listed(problem: dict) -> dict:
    """Return a problem as the API lists it.

    Without the facts its own one-line message would count."""
    return {key: value for key, value in problem.items() if key != FACTS}
