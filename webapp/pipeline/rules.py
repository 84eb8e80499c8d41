"""The problem rules the store applies inside a transaction.

Handed to it by the pipeline.

A batch's problem changes depend on one another (the first call that breaks a resolved problem
regresses it, so the next one does not), so they are decided call by call as the batch's parts go
in, by these pure rules of webapp/problems/, which the store is given and never imports: the store
writes, the rules decide. What the batch's changes tell (an hour's burst, the alerts) is decided
after them, from facts the store reads (telling.py)."""

from types import SimpleNamespace

from ..problems import escalation, states
from ..problems.grouping import exercises

RULES = SimpleNamespace(
    # a breaking call regresses a resolved problem
    reopens=states.reopens,
    # an archived-until-escalating problem breaks out of its archive
    escalates=states.escalates,
    # a call's arguments have a problem's path: it counts toward the problem's exposure
    exercises=exercises,
    # a call live enough to count toward an hour's burst
    is_recent=escalation.is_recent,
)
