"""Join a trace's spans into one call per tool call.

Whatever exports and order they came in.

spans.py joins an HTTP span to its parent's call or to its turn's when the two share a parent. The
chains that cross processes or exports need more: an MCP server's `tools/call` span and its HTTP
span come from the server's process, under the client's span of the agent's process; a tool span
without the model's call id comes alone when the exporter sends one span a request. Ingest names
such a tool span's call for want of a better id (`provisional` in its events' meta) and gives every
event its span's ancestors (`ancestors`) and a tool span's events the snapshot-less spans under it
(`covers`). Over all of a trace's span events, each still unjoined unit (a provisional call, an
orphan span's events) goes, in this order of evidence, to:

1. the call of its nearest ancestor span that has one (the propagated context);
2. a tool span's call whose time holds it (an HTTP span whose context was lost);
3. a call its model turn announced and no tool span took: the latest turn before it, the call
   with its tool name and its arguments (an HTTP span: the values its request carries), else the
   turn's next call in order; two units never take one call, so two calls stay two.

A tool span under an id of its own that no turn announced (ADK 2.x names its tool spans
`adk-<uuid>`, the model's calls `find_orders_0`...) is the call the latest turn before it announced
of its tool and its arguments, one tool span to a call: that call's events (its announced
arguments, the result the next turn carried) join the tool span's id, as in one export.

`plan` is a pure function of the trace's rows, so the same spans give the same calls whatever order
they arrived in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

# a unit joins a turn announced at most this long before it
TURN_WINDOW = timedelta(minutes=15)
# the events of a trace read for a join at most; a larger trace keeps the joins it has
MAX_TRACE_EVENTS = 20_000


@dataclass
class Row:
    """One stored span event, as the join reads it."""

    seq: int
    call_id: str
    tool: str | None
    snapshot: str
    ts: str
    meta: dict
    payload: Any = None


@dataclass(eq=False)
class Unit:
    """Events that move together: a provisional call's, or one orphan span's."""

    key: str
    rows: list = field(default_factory=list)
    tool: str | None = None

    @property
    def start(self) -> str:
        return min(r.ts for r in self.rows)

    @property
    def end(self) -> str:
        return max(r.ts for r in self.rows)

    @property
    def lineage(self) -> list[str]:
        """The ancestors of its first span, nearest first (a provisional call's tool span)."""
        first = min(self.rows, key=lambda r: (r.ts, r.seq)).meta
        parent = first.get("parent_span_id")
        ancestors = first.get("ancestors")
        if type(ancestors) is list and ancestors:
            return [a for a in ancestors if type(a) is str]
        return [parent] if type(parent) is str and parent else []

    @property
    def spans(self) -> set[str]:
        return {r.meta.get("span_id") for r in self.rows}


@dataclass
class Announced:
    """A call a model span announced, and whether a tool span took it.

    Its arguments event."""

    call_id: str
    tool: str | None
    model_span: str
    index: int
    ts: str
    arguments: Any
    # a tool span of its own gave it a snapshot: no other tool span takes it
    taken: bool = False
    # an HTTP span gave it its request or response: no other HTTP span takes it
    sent: bool = False


def plan(rows: list[Row]) -> dict[int, tuple[str, str | None]]:
    """Return {seq: (call id, tool)} of the events that belong in another call.

    Another call than the one they are in."""
    units = _units(rows)
    announced = _announced(rows, units)
    aliases = _aliases(rows, announced)
    if not units and not aliases:
        return {}
    owners = _owners(rows, units)
    targets: dict[str, tuple[str, str | None] | Unit] = {}
    for unit in units.values():
        found = _by_lineage(unit, owners)
        if found is not None:
            targets[unit.key] = found
    for unit in units.values():
        if unit.key not in targets and unit.key.startswith("span:"):
            found = _by_time(unit, rows, units)
            if found is not None:
                targets[unit.key] = found
    targets.update(_by_turn([u for u in units.values() if u.key not in targets], announced))
    return _aliased(rows, _moves(units, targets), aliases)


def _units(rows: list[Row]) -> dict[str, Unit]:
    """The provisional calls (by the id ingest gave them) and the orphan spans.

    By span id."""
    units: dict[str, Unit] = {}
    provisional = {r.meta["provisional"] for r in rows if type(r.meta.get("provisional")) is str}
    for r in rows:
        own = r.meta.get("provisional")
        if type(own) is str:
            key = f"call:{own}"
        elif r.call_id == "" or r.meta.get("loose") is True:
            key = f"span:{r.meta.get('span_id')}"
        elif r.call_id in provisional and not _is_announced(r):
            # adopted under a provisional call: it goes where that call goes
            key = f"call:{r.call_id}"
        else:
            continue
        unit = units.setdefault(key, Unit(key))
        unit.rows.append(r)
        unit.tool = unit.tool or r.tool
    return units


def _owners(rows: list[Row], units: dict[str, Unit]) -> dict[str, tuple]:
    """Return {span id: (owner, time of its first event)} of the spans.

    The owner is its call (id, tool) or the unit it is in; every span with events and every span a
    tool span covers."""
    in_unit = {id(r): u for u in units.values() for r in u.rows}
    owners: dict[str, tuple] = {}
    for r in sorted(rows, key=lambda r: (r.ts, r.seq)):
        owner = in_unit.get(id(r)) or (r.call_id, r.tool)
        spans = [r.meta.get("span_id")]
        covers = r.meta.get("covers")
        spans += [c for c in covers if type(c) is str] if type(covers) is list else []
        for span in spans:
            if type(span) is str and span not in owners:
                owners[span] = (owner, r.ts)
    return owners


def _by_lineage(unit: Unit, owners: dict):
    """The call (or unit) of the nearest ancestor of the unit that has one.

    Within TURN_WINDOW (a span id reused much later joins nothing)."""
    own = unit.spans
    for ancestor in unit.lineage:
        if ancestor in own or ancestor not in owners:
            continue
        owner, at = owners[ancestor]
        if owner is not unit and _within(min(at, unit.start), max(at, unit.start)):
            return owner
        return None
    return None


def _by_time(unit: Unit, rows: list[Row], units: dict[str, Unit]):
    """The call (or unit) of the innermost tool span holding the orphan's time.

    The tool span whose time holds the orphan span's."""
    spans: dict[str, list[Row]] = {}
    for r in rows:
        if r.meta.get("tool_span") is True and r.call_id:
            spans.setdefault(r.meta.get("span_id"), []).append(r)
    holding = []
    sent = _sent(unit)
    for span_id, events in spans.items():
        start, end = min(e.ts for e in events), max(e.ts for e in events)
        if start < end and start <= unit.start and unit.end <= end:
            arguments = [_leaves(e.payload) for e in events if e.snapshot == "arguments"]
            carried = bool(arguments) and bool(sent) and arguments[0] <= sent
            holding.append((carried, start, span_id, events[0]))
    if not holding:
        return None
    # the one whose arguments its request carries, else the innermost
    *_, event = max(holding)
    owner = next((u for u in units.values() if event in u.rows), None)
    return owner or (event.call_id, event.tool)


def _is_announced(r: Row) -> bool:
    return r.snapshot == "arguments" and r.meta.get("call_index") is not None


def _announced(rows: list[Row], units: dict[str, Unit]) -> list[Announced]:
    """The calls model spans announced.

    Each marked taken when a span outside the units gave it a snapshot of its own (a tool span with
    the model's call id, an HTTP span joined already)."""
    in_units = {id(r) for u in units.values() for r in u.rows}
    calls = {}
    for r in rows:
        if _is_announced(r) and r.call_id:
            calls[r.call_id] = Announced(
                r.call_id,
                r.tool,
                str(r.meta.get("span_id")),
                int(r.meta["call_index"]),
                r.ts,
                r.payload,
            )
    for r in rows:
        call = calls.get(r.call_id)
        if call is None or id(r) in in_units or _is_announced(r):
            continue
        if r.meta.get("tool_span") is True:
            call.taken = True
        elif r.snapshot in ("request", "response"):
            call.sent = True
    return list(calls.values())


def _aliases(rows: list[Row], announced: list[Announced]) -> dict[str, tuple]:
    """Return {announced call id: (the tool span's own id, tool, announced at)}.

    Each tool span under an id no turn announced takes the untaken call of its latest turn with its
    tool and arguments, in the order they started; the call is marked taken, so no unit takes it."""
    ids = {call.call_id for call in announced}
    own: dict[str, list[Row]] = {}
    for r in rows:
        tool_span = r.meta.get("tool_span") is True and "provisional" not in r.meta
        if tool_span and r.call_id and r.call_id not in ids and r.snapshot == "arguments":
            own.setdefault(r.call_id, []).append(r)
    turns: dict[str, list[Announced]] = {}
    for call in announced:
        turns.setdefault(call.model_span, []).append(call)
    aliases = {}
    for call_id, found in sorted(own.items(), key=lambda kv: (min(r.ts for r in kv[1]), kv[0])):
        first = min(found, key=lambda r: (r.ts, r.seq))
        turn = _turn_of(Unit(call_id, found, first.tool), turns)
        calls = sorted(turns.get(turn, []), key=lambda c: c.index)
        call = next((c for c in calls if not c.taken and _same_call(first, c)), None)
        if call is not None:
            call.taken = True
            aliases[call.call_id] = (call_id, first.tool or call.tool, call.ts)
    return aliases


def _same_call(r: Row, call: Announced) -> bool:
    """Tell whether a tool span's arguments are the announced call's, of its tool."""
    return (not r.tool or not call.tool or r.tool == call.tool) and r.payload == call.arguments


def _aliased(rows: list[Row], moves: dict, aliases: dict) -> dict[int, tuple[str, str | None]]:
    """Move an announced call's events to the own id of the tool span that took it.

    Those from its announcement on."""
    if not aliases:
        return moves
    for r in rows:
        call_id, _ = moves.get(r.seq, (r.call_id, r.tool))
        alias = aliases.get(call_id)
        if alias is not None and r.ts >= alias[2]:
            moves[r.seq] = alias[:2]
    return moves


def _by_turn(loose: list[Unit], announced: list[Announced]) -> dict[str, tuple[str, str | None]]:
    """Pair the loose units with the untaken calls of their turns.

    By tool and arguments first, then in order."""
    turns: dict[str, list[Announced]] = {}
    for call in announced:
        turns.setdefault(call.model_span, []).append(call)
    members: dict[str, list[Unit]] = {}
    for unit in loose:
        turn = _turn_of(unit, turns)
        if turn is not None:
            members.setdefault(turn, []).append(unit)
    found = {}
    for turn, units in members.items():
        calls = sorted(turns[turn], key=lambda c: c.index)
        units.sort(key=lambda u: (u.start, u.key))
        for unit, call in _pairs(units, calls):
            found[unit.key] = (call.call_id, call.tool)
    return found


def _turn_of(unit: Unit, turns: dict[str, list[Announced]]) -> str | None:
    """The latest turn announced before the unit that has a call for its tool.

    Within TURN_WINDOW."""
    start, best = unit.start, None
    for model_span, calls in turns.items():
        at = calls[0].ts
        if at > start or not _within(at, start):
            continue
        if unit.tool and not any(c.tool in (None, unit.tool) for c in calls):
            continue
        if best is None or at > turns[best][0].ts:
            best = model_span
    return best


def _pairs(units: list[Unit], calls: list[Announced]) -> list[tuple[Unit, Announced]]:
    """Each unit with the call whose tool and arguments it matches.

    Else the next free call of its tool, in order."""
    free, pairs = list(calls), []
    for matching in (True, False):
        for unit in [u for u in units if u not in {p[0] for p in pairs}]:
            call = next((c for c in free if _fits(unit, c, matching)), None)
            if call is not None:
                free.remove(call)
                pairs.append((unit, call))
    return pairs


def _fits(unit: Unit, call: Announced, matching: bool) -> bool:
    """Tell whether a unit may take an announced call.

    A tool span one no tool span took, of its tool, with its arguments when `matching`; an HTTP span
    one no HTTP span answered, whose arguments' values its request carries (never only by its place:
    an HTTP span may be another call's)."""
    tool_span = any(r.meta.get("tool_span") is True for r in unit.rows)
    if call.taken or not tool_span and call.sent:
        return False
    if unit.tool and call.tool and unit.tool != call.tool:
        return False
    if any(r.snapshot == "arguments" for r in unit.rows):
        mine = [r.payload for r in unit.rows if r.snapshot == "arguments"]
        return not matching or any(p == call.arguments for p in mine)
    sent = _sent(unit)
    return bool(sent) and _leaves(call.arguments) <= sent


def _sent(unit: Unit) -> set[str]:
    """The values the unit's requests carried."""
    mine = [r.payload for r in unit.rows if r.snapshot == "request"]
    return set().union(*map(_leaves, mine)) if mine else set()


def _leaves(value: Any) -> set[str]:
    """The scalar values inside a payload, as text.

    A number sent as text still matches."""
    if type(value) is dict:
        return set().union(*map(_leaves, value.values())) if value else set()
    if type(value) is list:
        return set().union(*map(_leaves, value)) if value else set()
    return {str(value)}


def _within(earlier: str, later: str) -> bool:
    """Tell two stored times (fixed-width ISO) at most TURN_WINDOW apart."""
    try:
        a = datetime.fromisoformat(earlier[:26].rstrip("Z"))
        b = datetime.fromisoformat(later[:26].rstrip("Z"))
    except ValueError:
        return False
    return b - a <= TURN_WINDOW


def _moves(units: dict[str, Unit], targets: dict) -> dict[int, tuple[str, str | None]]:
    """Resolve each unit's target through the units it names.

    Return the rows that change call."""
    moves = {}
    for unit in units.values():
        target, seen = targets.get(unit.key), {unit.key}
        while isinstance(target, Unit) and target.key not in seen:
            seen.add(target.key)
            # a provisional call that joined nothing: the unit joins it where it is
            target = targets.get(target.key) or (target.rows[0].call_id, target.tool)
        if not isinstance(target, tuple) or not target[0]:
            continue
        call_id, tool = target
        for r in unit.rows:
            if r.call_id != call_id:
                moves[r.seq] = (call_id, tool)
    return moves
