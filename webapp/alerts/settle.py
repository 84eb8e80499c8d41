"""Alerts wait for the analysis to settle and say what is true when sent.

Pure.

A problem message is written in the transaction of the analysis that opened (or regressed, or
escalated) the problem, but what that analysis found may not last: a tool's inferred mapping can
change a moment later and queue its calls for re-analysis, which may empty the problem. So the
sender asks, for each problem a message speaks of, whether the calls that show it have all been
analysed under the current contract and inference: while some wait for re-analysis, the message
waits too (up to SETTLE_S after it was written, then it goes as it is). Then it is rebuilt from the
problems as they are now: a problem no call shows any more is left out, a message left with no
problem is not sent, and a summary's counts and list are those of the moment it goes.
"""

from dataclasses import dataclass

from .storms import FACTS, IDS, summary_of

# the longest a message waits for a re-analysis of its problems' calls
SETTLE_S = 120
# how soon a waiting message is looked at again
RECHECK_S = 1.0


@dataclass(frozen=True)
class Decision:
    # "send", "wait" or "drop"
    action: str
    data: dict | None = None
    reason: str = ""


def problem_numbers(message: dict) -> list[int]:
    """Return the numbers of the problems a message speaks of.

    None for a message about something else."""
    data = message.get("data") or {}
    if data.get("summary"):
        ids = data.get(IDS) or [
            p.get("id") for p in data.get("problems") or [] if isinstance(p, dict)
        ]
    elif message.get("type") in ("new", "regressed", "escalating") and isinstance(
        data.get("id"), str
    ):
        ids = [data["id"]]
    else:
        ids = []
    return [
        int(i[3:]) for i in ids if isinstance(i, str) and i.startswith("TD-") and i[3:].isdigit()
    ]


def decide(
    message: dict,
    now: dict[int, dict | None],
    unsettled: set[int],
    waited_s: float,
    bound_s: float = SETTLE_S,
) -> Decision:
    """Say what to do with a claimed message.

    Given its problems as they are now (`now`: number -> the problem as an alert carries it, None
    when no call shows it any more) and those whose calls wait for re-analysis."""
    numbers = problem_numbers(message)
    if not numbers:
        return Decision("send", message["data"])
    if unsettled & set(numbers) and waited_s < bound_s:
        return Decision(
            "wait", reason=f"waiting for the re-analysis of TD-{min(unsettled & set(numbers))}"
        )
    alive = [now[n] for n in numbers if now.get(n)]
    if not alive:
        gone = ", ".join(f"TD-{n}" for n in numbers[:5])
        return Decision("drop", reason=f"not sent: no call shows {gone} any more")
    data = message["data"]
    if data.get("summary"):
        return Decision(
            "send",
            summary_of(
                [{k: v for k, v in p.items() if k != FACTS} for p in alive],
                bool(data.get("reanalysis")),
            ),
        )
    return Decision("send", alive[0])
