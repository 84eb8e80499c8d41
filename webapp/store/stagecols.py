"""The stages' columns, named from STAGES.

A call keeps each stage's current snapshot, a trace whether all have it.

Each stage has `calls.<name>_seq` (the seq of its current event) and `traces.has_<name>` (every call
of the trace has one: the list's "missing" filter). Both engines' statements are built from the
fragments here, and a stage declared after the numbered migrations gets its columns when the store
opens to write.
"""

from ..common.stages import CORE, NAMES

SEQS = tuple(f"{name}_seq" for name in NAMES)
HAS = tuple(f"has_{name}" for name in NAMES)
HAS_TYPE = "INTEGER NOT NULL DEFAULT 0"
# a call is complete with the core stages; the others are optional
COMPLETE = " AND ".join(f"{name}_seq IS NOT NULL" for name in CORE)


def seqs(prefix: str = "") -> str:
    """Return the seq columns as a select or insert list.

    `c.arguments_seq, c.request_seq, ...`."""
    return ", ".join(prefix + seq for seq in SEQS)


def currents(current: str) -> str:
    """Return the subquery of each stage's current event.

    From a template with `{0}` for the stage's name."""
    return ", ".join(current.format(name) for name in NAMES)


def changed(table: str, differs: str) -> str:
    """Return the test that a stage's current event changed.

    `c.arguments_seq IS NOT excluded.arguments_seq OR ...`."""
    return " OR ".join(f"{table}.{seq} {differs} excluded.{seq}" for seq in SEQS)


def set_excluded(columns=SEQS) -> str:
    """Return the upsert's assignment of the columns.

    `arguments_seq = excluded.arguments_seq, ...`."""
    return ", ".join(f"{column} = excluded.{column}" for column in columns)


def each_present(template: str) -> str:
    """Return, per stage, whether every call has it.

    From a template with `{0}` for the seq column."""
    return ", ".join(template.format(seq) for seq in SEQS)


def missing(existing: dict[str, set[str]], seq_type: str) -> list[str]:
    """Return the ALTER TABLE statements adding the stages' missing columns.

    Those `existing` ({table: columns}) lacks."""
    wanted = [
        *(("calls", seq, seq_type) for seq in SEQS),
        *(("traces", has, HAS_TYPE) for has in HAS),
    ]
    return [
        f"ALTER TABLE {table} ADD COLUMN {column} {kind}"
        for table, column, kind in wanted
        if column not in existing.get(table, set())
    ]
