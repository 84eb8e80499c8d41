"""Turns: give HTTP and tool spans the call a model span announced.

The tool call a model span announced just before them.

An instrumented SDK records the model's request as one span and the agent's tool code runs after it,
beside it under the same parent: nothing but order ties the tool's HTTP span to the call the model
asked for. A span belongs to the latest model span under its nearest ancestor that started before it
(the next model span closes the turn); when the turn announced several calls, its spans pair with
them in order.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from . import genai
from .otlp_calls import TOOL_KEYS, framework_of, tool_kind
from .otlp_spans import SPAN_KIND_CLIENT, Span

_MAX_HOPS = 256


@dataclass(eq=False)
class Turn:
    """One model span and the calls it announced."""

    model: Span
    calls: list[genai.ToolCall]
    provider: str | None


@dataclass(eq=False)
class Result:
    """A tool's result as a model request carried it back.

    With that request's span and its turn's source."""

    content: object
    carrier: Span
    source: str | None = None


class Turns:
    """The model turns of one export, and the call each of their spans is of.

    Which announced call each span of theirs belongs to."""

    def __init__(self, spans: list[Span], by_id: dict):
        self.by_id = by_id
        # id(model span) -> its turn
        self.turns: dict[int, Turn] = {}
        self._models_under: dict[tuple[str, str], list[Span]] = {}
        self._sdk_requests: set[int] = set()
        for s in spans:
            if not genai.is_model_span(s.attrs):
                continue
            # a framework's turn is named by the framework (also when a plain SDK's instrumentation
            # records its model calls inside the framework's spans, as CrewAI's docs set it up), a
            # plain SDK's by its model provider
            source = framework_of(s) or self._framework_above(s) or genai.provider(s.attrs)
            turn = Turn(s, _named_calls(s), source)
            # the SDK's own span of its HTTP request, beside the library's
            if not turn.calls and _is_http(s):
                self._sdk_requests.add(id(s))
                continue
            self.turns[id(s)] = turn
            self._models_under.setdefault((s.trace_id, s.parent_id), []).append(s)
        for models in self._models_under.values():
            models.sort(key=lambda m: m.start_ns)
        self.results = self._results(spans)
        # (trace id, id(carrier)) -> {echoed id: announced id} (announced_id)
        self._claimed: dict[tuple[str, int], dict[str, str]] = {}

    def is_model(self, s: Span) -> bool:
        return id(s) in self.turns or id(s) in self._sdk_requests

    def under_model(self, s: Span) -> bool:
        """Tell a span inside a model span, not inside a tool span there.

        The SDK's own request to the model API; Google ADK runs its tools inside the model's
        call_llm span."""
        for a in self._ancestors(s):
            if self.is_model(a):
                return True
            if tool_kind(a):
                return False
        return False

    def assign(
        self, https: list[Span], tools: list[Span] = ()
    ) -> dict[int, tuple[Turn, genai.ToolCall]]:
        """Return {id(span): (turn, call)} of the spans of announced calls.

        The HTTP and tool spans that belong to an announced call.

        A turn's tool spans take its calls in order; an HTTP span goes with the latest tool span of
        its turn started before it (a tool whose HTTP client lost the context), else the turn's HTTP
        spans take the calls in order, and one call takes them all."""
        owners, tool_ids = {}, {id(t) for t in tools}
        for turn, members in self._by_turn([*https, *tools]).items():
            members.sort(key=lambda s: s.start_ns)
            in_turn_tools = [s for s in members if id(s) in tool_ids]
            owners.update({id(s): (turn, call) for s, call in _paired(in_turn_tools, turn.calls)})
            loose = [s for s in members if id(s) not in tool_ids]
            if in_turn_tools:
                for s in loose:
                    before = [
                        t for t in in_turn_tools if t.start_ns <= s.start_ns and id(t) in owners
                    ]
                    if before:
                        owners[id(s)] = owners[id(before[-1])]
            elif len(turn.calls) == 1:
                owners.update({id(s): (turn, turn.calls[0]) for s in loose})
            else:
                owners.update({id(s): (turn, call) for s, call in zip(loose, turn.calls)})
        return owners

    def by_arguments(self, tools: list[Span]) -> dict[int, tuple[Turn, genai.ToolCall]]:
        """Return {id(span): (turn, call)} for tool spans no turn holds that name no call.

        LlamaIndex runs its tools beside the agent step that asked for them: each takes the
        earliest call announced before it of its tool with its very arguments, not taken yet."""
        owners, taken = {}, set()
        announced = sorted(
            ((t.model.end_ns, n, t, call) for t in self.turns.values() for n, call in
             enumerate(t.calls)),
            key=lambda item: item[:2],
        )  # fmt: skip
        for s in sorted(tools, key=lambda t: t.start_ns):
            arguments = genai.unwrap_arguments(s.attrs.get(TOOL_KEYS[tool_kind(s)][2]))
            name = s.attrs.get(TOOL_KEYS[tool_kind(s)][0])
            for end_ns, _, turn, call in announced:
                fits = call.name in (None, name) and call.arguments == arguments
                if fits and id(call) not in taken and turn.model.trace_id == s.trace_id:
                    if end_ns <= s.start_ns:
                        owners[id(s)] = (turn, call)
                        taken.add(id(call))
                        break
        return owners

    def _by_turn(self, items: list[Span]) -> dict[Turn, list[Span]]:
        by_turn: dict[Turn, list[Span]] = {}
        for s in items:
            turn = self.turn_of(s)
            if turn is not None and turn.calls:
                by_turn.setdefault(turn, []).append(s)
        return by_turn

    def places(self, items: list[Span]) -> dict[int, dict]:
        """Return {id(span): meta} for spans in a turn that announced nothing here.

        Its calls may come in a log."""
        by_turn: dict[int, list[Span]] = {}
        for s in items:
            turn = self.turn_of(s)
            if turn is not None and not turn.calls:
                by_turn.setdefault(id(turn.model), []).append(s)
        places = {}
        for model_id, members in by_turn.items():
            members.sort(key=lambda s: s.start_ns)
            span_id = self.turns[model_id].model.span_id
            places.update(
                {
                    id(s): {"turn_span_id": span_id, "turn_position": n}
                    for n, s in enumerate(members, 1)
                }
            )
        return places

    def turn_of(self, s: Span) -> Turn | None:
        """Return the latest model span before `s` under its nearest ancestor that has one."""
        parent_id, hops = s.parent_id, 0
        while parent_id and hops < _MAX_HOPS:
            models = self._models_under.get((s.trace_id, parent_id), [])
            at = bisect.bisect_right(models, s.start_ns, key=lambda m: m.start_ns)
            before = [m for m in models[max(0, at - 2) : at] if m is not s]
            if before:
                return self.turns[id(before[-1])]
            parent = self.by_id.get((s.trace_id, parent_id))
            if parent is None:
                return None
            parent_id, hops = parent.parent_id, hops + 1
        return None

    def announced_id(self, trace_id: str, call_id: str, carrier: Span) -> str:
        """Return the announced call a result's id stands for.

        Its own id when a turn of the trace announced it; else, when the request that carried it
        echoes the call (ADK 2.x sends the model its calls again without their ids, and its
        telemetry names them `find_orders_0`...), the earliest announced call of the echo's tool
        and arguments not yet claimed so."""
        announced = [c for t in self._in_order() if t.model.trace_id == trace_id for c in t.calls]
        if any(c.call_id == call_id for c in announced):
            return call_id
        echoes = genai.calls_in_messages(carrier.attrs.get("gen_ai.input.messages"))
        echo = next((c for c in echoes if c.call_id == call_id), None)
        claimed = self._claimed.setdefault((trace_id, id(carrier)), {})
        if call_id in claimed or echo is None:
            return claimed.get(call_id, call_id)
        for call in announced:
            fits = call.name == echo.name and call.arguments == echo.arguments
            if fits and call.call_id not in claimed.values():
                claimed[call_id] = call.call_id
                return call.call_id
        return call_id

    def _in_order(self) -> list[Turn]:
        return sorted(self.turns.values(), key=lambda t: t.model.start_ns)

    def _framework_above(self, s: Span) -> str | None:
        return next(filter(None, map(framework_of, self._ancestors(s))), None)

    def _ancestors(self, s: Span):
        parent_id, hops = s.parent_id, 0
        while parent_id and hops < _MAX_HOPS:
            parent = self.by_id.get((s.trace_id, parent_id))
            if parent is None:
                return
            yield parent
            parent_id, hops = parent.parent_id, hops + 1

    def _results(self, spans: list[Span]) -> dict[tuple[str, str], Result]:
        """Return {(trace id, call id): result}.

        The first model request that carried each call's result."""
        results = {}
        for turn in sorted(self.turns.values(), key=lambda t: t.model.start_ns):
            for result in genai.tool_results(turn.model.attrs):
                results.setdefault(
                    (turn.model.trace_id, result.call_id),
                    Result(result.content, turn.model, turn.provider),
                )
        return results


def _paired(tools: list[Span], calls: list[genai.ToolCall]) -> list[tuple[Span, genai.ToolCall]]:
    """Pair a turn's tool spans with its calls.

    Each with the call of its very arguments, the rest in order (a framework that runs a turn's
    calls at once, CrewAI, may start them in any order)."""
    pairs, left = [], list(calls)
    unmatched = []
    for s in tools:
        arguments = genai.unwrap_arguments(s.attrs.get(TOOL_KEYS[tool_kind(s)][2]))
        same = [c for c in left if arguments is not None and c.arguments == arguments]
        if same:
            pairs.append((s, same[0]))
            left.remove(same[0])
        else:
            unmatched.append(s)
    return pairs + list(zip(unmatched, left))


def _named_calls(model: Span) -> list[genai.ToolCall]:
    """Return a model span's announced calls.

    Each with a call id of its own even when the library gave none."""
    return [
        call if call.call_id else genai.ToolCall(f"{model.span_id}-{n}", call.name, call.arguments)
        for n, call in enumerate(genai.announced_calls(model.attrs), 1)
    ]


def _is_http(s: Span) -> bool:
    return s.kind == SPAN_KIND_CLIENT and (
        "http.request.method" in s.attrs or "http.method" in s.attrs
    )
