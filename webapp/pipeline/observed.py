"""Observed schemas as the pipeline keeps them.

Each call's stages learnt from once, in the analyser's transaction, and their drift findings added
to the call's analysis (webapp/observed holds the learning)."""

from ..analysis import sort_findings, status_code, worst
from ..contracts import ContractError, validated_contract
from ..observed import STAGES, drift_findings, empty_shape, facts_of, learn, observed_schema
from ..observed.compare import disagreements
from ..observed.structured import structured_shape
from ..problems.fingerprint import normalise_path
from ..store.problem_filters import ProblemFilters

# an error body has a shape of its own: the success shape is learnt from the rest
ERROR_STATUS = 400


class Observer:
    """Learn a batch's calls into their tools' shapes and tell each call's drift.

    Write it all with the batch."""

    def __init__(self, store, keys):
        self.store = store
        self.records = store.observed_of(list(keys))
        self.shapes, self.loaded, self.learnt, self.changed = {}, {}, {}, {}
        # (tool, stage): the calls its stored shape had learnt when read
        self.calls_before = {}

    def drift(self, key, call: dict, analysis: dict) -> list[dict]:
        """Return the drift findings of a call.

        Learning the stages of it not learnt from yet."""
        tool = call["tool"]
        if not tool:
            return []
        record = self.records.get(key) or {"seen": [], "findings": []}
        snapshots = call["snapshots"]
        for stage in STAGES:
            snap = snapshots.get(stage)
            if snap is None or stage in record["seen"]:
                continue
            record["seen"].append(stage)
            self.records[key] = self.changed[key] = record
            if _learnable(stage, snap, analysis):
                record["findings"] += self._learn(key, tool, stage, snap)
        return told_once(record["findings"])

    def _learn(self, key, tool: str, stage: str, snap: dict) -> list[dict]:
        shape = self._shape(tool, stage)
        facts, ts = facts_of(snap.get("payload")), snap.get("ts")
        found = drift_findings(stage, shape, facts, ts)
        learn(shape, facts, ts)
        self.learnt.setdefault((tool, stage), []).append((key, facts, ts))
        return found

    def _shape(self, tool: str, stage: str) -> dict:
        if (tool, stage) not in self.shapes:
            # read fresh from the store: learnt into in place, not copied (a 400-path
            if tool not in self.loaded:
                # shape's deepcopy took 50 ms a batch)
                self.loaded[tool] = self.store.observed_shapes(tool)
            stored = self.loaded[tool].get(stage)
            self.calls_before[(tool, stage)] = stored["calls"] if stored else None
            self.shapes[(tool, stage)] = stored or empty_shape()
        return self.shapes[(tool, stage)]

    def write(self, conn) -> None:
        """Write the shapes learnt and what each call was learnt from.

        Inside the batch's transaction.

        Another analyser may have learnt meanwhile (a page analyses the calls it shows without
        claiming them): the shapes it wrote are the base then, and a call stage it learnt already is
        not learnt twice."""
        # every lock first, always in one order, then what they guard
        for tool, stage in sorted(self.learnt):
            self.store.take_turn(conn, f"observed:{tool}:{stage}")
        theirs = self.store.observed_of(list(self.changed), conn)
        for (tool, stage), items in sorted(self.learnt.items()):
            mine = [
                (facts, ts)
                for key, facts, ts in items
                if stage not in (theirs.get(key) or {}).get("seen", ())
            ]
            now = self.store.observed_shape_in(conn, tool, stage)
            shape = self.shapes[(tool, stage)]
            if (
                len(mine) < len(items)
                or (now or {}).get("calls") != self.calls_before[(tool, stage)]
            ):
                # learnt or forgotten meanwhile
                shape = now or empty_shape()
                for facts, ts in mine:
                    learn(shape, facts, ts)
            self.store.put_observed_shape(conn, tool, stage, shape)
        if self.changed:
            self.store.set_observed_in(
                conn, {key: _joined(theirs.get(key), mine) for key, mine in self.changed.items()}
            )


def _joined(theirs: dict | None, mine: dict) -> dict:
    """Return a call's record, keeping stages another analyser learnt meanwhile.

    Kept as it told them."""
    if not theirs:
        return mine
    new = [stage for stage in mine["seen"] if stage not in theirs["seen"]]
    findings = [f for f in mine["findings"] if _stage_of(f) in new]
    return {"seen": theirs["seen"] + new, "findings": theirs["findings"] + findings}


def told_once(findings: list[dict]) -> list[dict]:
    """Leave out a result's drift that repeats the response's drift.

    Where the response drifted the same way at the same field: a result that passes the response on
    (the JSON body, or MCP structuredContent) repeats the server's change, one problem, not two."""
    response = {(f["right"]["path"], f["transform"]) for f in findings if _at(f, "response")}
    return [
        f
        for f in findings
        if not (_at(f, "result") and (_passed_on(f["right"]["path"]), f["transform"]) in response)
    ]


def _at(finding: dict, stage: str) -> bool:
    return finding["right"] is not None and finding["right"]["snapshot"] == stage


def _passed_on(path: str) -> str:
    """The response path a result path repeats when it passes the body on.

    `/structuredContent/x` -> `/x`."""
    if path == STRUCTURED or path.startswith(STRUCTURED + "/"):
        return path.removeprefix(STRUCTURED) or "/"
    return path


STRUCTURED = "/structuredContent"


def _learnable(stage: str, snap: dict, analysis: dict) -> bool:
    """Say whether a stage's snapshot shows the tool's usual shape.

    JSON that parsed, a body, a success."""
    if snap.get("payload") is None:
        return False
    if stage == "response" and (status_code(snap) or 0) >= ERROR_STATUS:
        return False
    return not any(
        f["kind"] == "invalid_json" for f in analysis.get("findings") or () if _stage_of(f) == stage
    )


def _named(findings: list[dict]) -> set[tuple]:
    """Return the places (stage, normalised path) the call's warnings and errors name.

    A mapping bug that changed a request field is that finding's problem, not a second one as
    drift."""
    return {
        (end["snapshot"], normalise_path(end.get("path")))
        for f in findings
        if f["severity"] in ("warning", "error") and f["kind"] != "drift"
        for end in (f.get("left"), f.get("right"))
        if end
    }


def _place(finding: dict) -> tuple:
    where = finding.get("left") or finding.get("right")
    return where["snapshot"], where["path"]


def _stage_of(finding: dict) -> str | None:
    where = finding.get("left") or finding.get("right") or {}
    return where.get("snapshot")


def declared_stages(contract: dict | None) -> set[str]:
    """Return the stages whose schema the contract declares.

    A declared schema wins, so they show no drift."""
    return {stage for stage in STAGES if (contract or {}).get(f"{stage}_schema") is not None}


def with_drift(analysis: dict, drift: list[dict], contract: dict | None) -> dict:
    """Add drift findings to an analysis, keeping its order and summary right.

    Not of stages the contract declares a schema for; its order, the places of its folded findings,
    its summary and its worst severity stay right."""
    declared = declared_stages(contract)
    findings = analysis.get("findings") or []
    named = _named(findings)
    drift = [f for f in drift if _stage_of(f) not in declared and _place(f) not in named]
    if not drift:
        return analysis
    places = analysis.get("places") or {}
    index = {id(f): str(i) for i, f in enumerate(findings)}
    ordered = sort_findings(findings + drift)
    analysis["findings"] = ordered
    moved = {
        str(i): places[index[id(f)]] for i, f in enumerate(ordered) if index.get(id(f)) in places
    }
    if places:
        analysis["places"] = moved
    summary = analysis.setdefault("summary", {})
    for f in drift:
        summary[f["severity"]] = summary.get(f["severity"], 0) + 1
    analysis["worst"] = worst([analysis.get("worst"), *(f["severity"] for f in drift)])
    return analysis


def observed_schemas(store, tool: str) -> dict:
    """Return a tool's contract draft.

    {stage: {"schema", "calls"}} for every stage (schema None before calls)."""
    shapes = store.observed_shapes(tool)
    return {
        stage: {
            "schema": observed_schema(shapes.get(stage)),
            "calls": (shapes.get(stage) or {}).get("calls", 0),
        }
        for stage in STAGES
    }


# the stages a contract has a schema for: a result's is its structured part's (result_schema)
ADOPTABLE = STAGES


def _checked_shape(stage: str, shape: dict | None) -> tuple[dict | None, str]:
    """Return the part of a stage's shape its schema checks, and where it sits.

    Its contract schema: a result's structured part (MCP structuredContent, or JSON), the others
    whole."""
    if stage != "result":
        return shape, ""
    return structured_shape(shape) or (None, "")


def observed_view(store, tool: str) -> dict:
    """Return what the tool page shows of the observed schemas.

    Per stage its draft, calls, declared schema and the fields where traffic disagrees with the
    declared one."""
    shapes, contract = store.observed_shapes(tool), store.get_tool(tool) or {}
    drifting = open_drift(store, tool)
    out = {}
    for stage in STAGES:
        shape, declared = shapes.get(stage), contract.get(f"{stage}_schema")
        checked, prefix = _checked_shape(stage, shape)
        out[stage] = {
            "schema": observed_schema(shape),
            "calls": (shape or {}).get("calls", 0),
            "declared": declared is not None,
            "adoptable": stage in ADOPTABLE and bool(checked and checked["calls"]),
            # where in each payload the adopted schema applies ("" the whole payload)
            "adopts": prefix,
            "disagreements": _prefixed(disagreements(checked, declared), prefix)
            if declared is not None
            else [],
            # what adopting this draft would accept as the contract
            "open_drift": drifting.get(stage, []),
        }
    return out


def open_drift(store, tool: str) -> dict[str, list[dict]]:
    """Return a tool's open drift problems per stage.

    The draft holds the changed shape they report."""
    problems, _ = store.find_problems(ProblemFilters(tool=tool, kind="drift", limit=200))
    by_stage: dict[str, list[dict]] = {}
    for problem in problems:
        side = problem["left"] or problem["right"] or {}
        if problem["state"] in ("open", "regressed") and side.get("snapshot"):
            by_stage.setdefault(side["snapshot"], []).append(
                {"id": problem["id"], "path": side["path"]}
            )
    return by_stage


def _prefixed(rows: list[dict], prefix: str) -> list[dict]:
    """Name the rows' paths in the stored payload (`/structuredContent/total`).

    Not in the part checked."""
    if not prefix:
        return rows
    return [{**row, "path": prefix + (row["path"] if row["path"] != "/" else "")} for row in rows]


def adopt(store, tool: str, stage: str) -> dict:
    """Write a stage's observed schema into the contract as its declared one.

    Enforced from now on; a result's is the schema of its structured part, the `result_schema` an
    MCP outputSchema would be."""
    if stage not in ADOPTABLE:
        raise ContractError(f"stage must be one of {', '.join(ADOPTABLE)}", "bad_stage")
    shape = store.observed_shapes(tool).get(stage)
    if observed_schema(shape) is None:
        raise ContractError(
            f"no {stage} of {tool!r} was learnt yet: nothing to adopt", "nothing_observed"
        )
    schema = observed_schema(_checked_shape(stage, shape)[0])
    if schema is None:
        raise ContractError(
            f"the results of {tool!r} learnt so far hold no structured value (MCP "
            "structuredContent, or JSON) "
            "for a result schema to check: they are text or content blocks",
            "nothing_structured",
        )
    part = {f"{stage}_schema": without_counts(schema)}

    def adopted(stored: dict | None) -> dict:
        parts = {k: v for k, v in (stored or {}).items() if k not in ("name", "updated_at")}
        return validated_contract(tool, {**parts, **part})

    # read and written as the contract's one writer: a confirm or another adopt meanwhile is kept
    return store.change_tool(tool, adopted)


def without_counts(schema):
    """Return a schema without its `x-tracediff-seen` counts.

    A contract states what is allowed, not how often."""
    if isinstance(schema, dict):
        return {k: without_counts(v) for k, v in schema.items() if k != "x-tracediff-seen"}
    if isinstance(schema, list):
        return [without_counts(v) for v in schema]
    return schema
