"""Inferred mappings' storage.

Evidence counts per tool and pair, rejections, the inferred set."""

import contextlib

from .codec import dumps, loads, utc_now
from .inference_state import InferenceState

# evidence rows one tool may hold, whatever its payloads look like
MAX_PAIRS_PER_TOOL = 2000
# calls re-analysed (newest first) when a tool's inferred pairs change
REANALYSE_RECENT = 2000
SELECT_EVIDENCE = "SELECT arguments, request, counts FROM mapping_evidence WHERE tool = ?"
UPSERT_EVIDENCE = """INSERT INTO mapping_evidence (tool, arguments, request, counts) VALUES (?, ?,
  ?, ?)
 ON CONFLICT (tool, arguments, request) DO UPDATE SET counts = excluded.counts"""
INVALIDATE_RECENT = """UPDATE calls SET version = version + 1, claimed_at = NULL WHERE (trace_id,
  call_id) IN
 (SELECT trace_id, call_id FROM calls WHERE tool = ? ORDER BY last_ts DESC LIMIT ?)"""
# calls.observed: what inference learnt of a call; LEARNT all of it, AWAITING its arguments and
# request but not its answer (not arrived then: its error fields are counted when it comes),
# RETURNING all but the result handed back (the words its answer was handed over in are counted
# when it comes)
UNLEARNT, LEARNT, AWAITING, RETURNING = 0, 1, 2, 3


class ToolMappings(InferenceState):
    """Evidence and decisions of the mapping inference (mixed into Store)."""

    def unobserved(self, keys) -> set[tuple[str, str]]:
        """Return which of these calls inference has not learnt from yet.

        Calls as (trace_id, call_id)."""
        return self._unobserved(self.db.conn, keys)

    def _unobserved(self, conn, keys) -> set[tuple[str, str]]:
        rows = conn.execute(
            f"SELECT c.trace_id, c.call_id FROM {self.sql.KEYED_CALLS} WHERE c.observed = 0",
            (dumps([list(key) for key in keys]),),
        )
        return {(r[0], r[1]) for r in rows}

    def evidence(self, tool: str) -> dict:
        """Return {(argument pointer, request pointer): counts} of a tool."""
        return {(a, r): loads(counts) for a, r, counts in self.db.execute(SELECT_EVIDENCE, (tool,))}

    def unlearnt(self, keys) -> dict:
        """Return {(trace_id, call_id): observed} of these calls not learnt whole yet."""
        return self.unlearnt_in(self.db.conn, keys)

    def unlearnt_in(self, conn, keys) -> dict:
        """Return {(trace_id, call_id): observed} of these calls not learnt whole yet.

        In the caller's transaction (see `learning`)."""
        rows = conn.execute(
            f"SELECT c.trace_id, c.call_id, c.observed FROM {self.sql.KEYED_CALLS} "
            f"WHERE c.observed <> {LEARNT}",
            (dumps([list(key) for key in keys]),),
        )
        return {(r[0], r[1]): r[2] for r in rows}

    @contextlib.contextmanager
    def learning(self, tool: str):
        """Be a tool's one learner for the block's transaction; yield its connection.

        Its evidence, path counts, release state and inferred pairs, read in the block, stay as
        read until it writes over them: a learner that counted against a state read before
        another's commit forgot a newer release, or started a pair twice."""
        with self.write() as conn:
            self.take_turn(conn, f"evidence:{tool}")
            yield conn

    def add_evidence(
        self,
        tool: str,
        per_call: dict,
        cap: int = MAX_PAIRS_PER_TOOL,
        paths: dict | None = None,
        releases: dict | None = None,
        fold=None,
    ) -> int:
        """Add each call's counts to a tool's evidence; return how many calls.

        Counts as {(trace_id, call_id): {pair: counts}}.

        One transaction: a call another worker learnt from meanwhile is skipped, so a call counts
        once; see `add_evidence_in` for the rest."""
        with self.learning(tool) as conn:
            unobserved = self._unobserved(conn, list(per_call))
            fresh = {key: per_call[key] for key in per_call if key in unobserved}
            return self.add_evidence_in(conn, tool, fresh, cap, paths, releases, fold)

    def add_evidence_in(
        self,
        conn,
        tool: str,
        per_call: dict,
        cap: int = MAX_PAIRS_PER_TOOL,
        paths: dict | None = None,
        releases: dict | None = None,
        fold=None,
        learnt: dict | None = None,
    ) -> int:
        """Add calls' counts inside a tool's `learning` transaction; return how many calls.

        Counts are added under the writer's lock, so no increment is lost; a new pair past `cap`
        is not kept. `paths` ({key: {(side, path): counts}}) are the calls' path counts;
        `releases` the tool's release state after them: when its newest release changed, every
        stored count goes through `fold` first. `learnt` ({key: UNLEARNT...}) is what each call's
        `observed` becomes (LEARNT by default)."""
        fresh = list(per_call)
        stored = {(a, r): loads(c) for a, r, c in conn.execute(SELECT_EVIDENCE, (tool,))}
        room, changed = cap - len(stored), set()
        if releases is not None:
            row = conn.execute("SELECT state FROM tool_releases WHERE tool = ?", (tool,)).fetchone()
            newest_changed = (loads(row[0]).get("newest") if row else None) != releases.get(
                "newest"
            )
            if newest_changed and fold is not None:
                stored = {pair: fold(counts) for pair, counts in stored.items()}
                changed = set(stored)
            self._set_releases(conn, tool, releases)
            self._add_paths(
                conn,
                tool,
                [(paths or {}).get(key, {}) for key in fresh],
                fold or dict,
                newest_changed and fold is not None,
            )
        for key in fresh:
            for pair, counts in per_call[key].items():
                if pair not in stored:
                    if room <= 0:
                        continue
                    room -= 1
                total = stored.setdefault(pair, {})
                for name, n in counts.items():
                    total[name] = total.get(name, 0) + n
                changed.add(pair)
        conn.executemany(UPSERT_EVIDENCE, [(tool, a, r, dumps(stored[(a, r)])) for a, r in changed])
        learnt = learnt or {}
        conn.executemany(
            "UPDATE calls SET observed = ? WHERE trace_id = ? AND call_id = ?",
            [(learnt.get(key, LEARNT), *key) for key in fresh],
        )
        return len(fresh)

    def inferred_pairs(self, tool: str) -> list[tuple[str, str]]:
        """Return the (argument, request) pairs the analysis of a tool's calls adds now."""
        row = self.db.execute(
            "SELECT inferred FROM tool_inference WHERE tool = ?", (tool,)
        ).fetchone()
        return [tuple(pair) for pair in loads(row[0])] if row else []

    def consumed_arguments(self, tool: str) -> list[str]:
        """Return the argument pointers a tool's mapping layer keeps.

        As its traffic showed: never sent."""
        row = self.db.execute(
            "SELECT consumed FROM tool_inference WHERE tool = ?", (tool,)
        ).fetchone()
        return loads(row[0]) if row else []

    def set_inferred(self, tool: str, pairs, recent: int = REANALYSE_RECENT, consumed=None) -> bool:
        """Store a tool's inferred pairs (and, when given, its consumed arguments).

        When they changed, re-analyse its newest calls. Say if they changed."""
        pairs = sorted([list(p) for p in pairs])
        old_consumed = self.consumed_arguments(tool)
        consumed = old_consumed if consumed is None else sorted(consumed)
        if (sorted(list(p) for p in self.inferred_pairs(tool)), old_consumed) == (pairs, consumed):
            # the common case after each batch: no write, no lock
            return False
        with self.write() as conn:
            return self.set_inferred_in(conn, tool, pairs, recent, consumed)

    def set_inferred_in(
        self, conn, tool: str, pairs, recent: int = REANALYSE_RECENT, consumed=None
    ) -> bool:
        """Store a tool's inferred pairs in the caller's transaction.

        As set_inferred does."""
        pairs = sorted([list(p) for p in pairs])
        row = conn.execute(
            "SELECT inferred, consumed FROM tool_inference WHERE tool = ?", (tool,)
        ).fetchone()
        before = (loads(row[0]), loads(row[1])) if row is not None else ([], [])
        consumed = before[1] if consumed is None else sorted(consumed)
        if before == (pairs, consumed):
            return False
        conn.execute(
            "INSERT INTO tool_inference (tool, inferred, consumed, updated_at) VALUES (?, ?, "
            "?, ?) "
            "ON CONFLICT (tool) DO UPDATE SET inferred = excluded.inferred, consumed = "
            "excluded.consumed, "
            "updated_at = excluded.updated_at",
            (tool, dumps(pairs), dumps(consumed), utc_now()),
        )
        reanalysed = conn.execute(INVALIDATE_RECENT, (tool, recent)).rowcount
        # the log tells pairs; the consumed arguments show on the tool's page
        if before[0] != pairs:
            self._log_change(conn, tool, before[0], pairs, max(reanalysed or 0, 0))
        return True

    def reanalyse_recent(self, tool: str, recent: int = REANALYSE_RECENT) -> int:
        """Queue a tool's newest calls for analysis again.

        What its history says of them changed."""
        with self.write() as conn:
            return self.reanalyse_recent_in(conn, tool, recent)

    def reanalyse_recent_in(self, conn, tool: str, recent: int = REANALYSE_RECENT) -> int:
        """Queue a tool's newest calls for analysis again, in the caller's transaction."""
        return max(conn.execute(INVALIDATE_RECENT, (tool, recent)).rowcount or 0, 0)

    def rejected_pairs(self, tool: str) -> set[tuple[str, str]]:
        """Return the pairs people rejected for a tool (kept out of inference)."""
        return {
            (a, r)
            for a, r in self.db.execute(
                "SELECT arguments, request FROM mapping_rejections WHERE tool = ?", (tool,)
            )
        }

    def reject_pair(self, tool: str, arguments: str, request: str) -> None:
        """Keep a pair out of a tool's inference."""
        with self.write() as conn:
            conn.execute(
                "INSERT INTO mapping_rejections (tool, arguments, request, rejected_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (tool, arguments, request, utc_now()),
            )

    def unreject_pair(self, tool: str, arguments: str, request: str) -> None:
        """Let a rejected pair count again (it was confirmed after all)."""
        with self.write() as conn:
            conn.execute(
                "DELETE FROM mapping_rejections WHERE tool = ? AND arguments = ? AND request = ?",
                (tool, arguments, request),
            )
