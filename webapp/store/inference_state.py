"""What inference weighs besides pair counts.

How many calls held each path, the releases a tool's calls came from, and the log of every change of
a tool's inferred pairs (mixed into Store through ToolMappings)."""

from .codec import dumps, loads, utc_now

# path rows one tool may hold
MAX_PATHS_PER_TOOL = 4000
CHANGES_SHOWN = 20
SELECT_PATHS = "SELECT side, path, counts FROM mapping_paths WHERE tool = ?"
UPSERT_PATH = """INSERT INTO mapping_paths (tool, side, path, counts) VALUES (?, ?, ?, ?)
 ON CONFLICT (tool, side, path) DO UPDATE SET counts = excluded.counts"""
# the tools of one service (the host their requests go to) are rows of a name no tool has
SERVICE = "\x1fservice:"
ADD_MEMBER = """INSERT INTO mapping_paths (tool, side, path, counts) VALUES (?, 'tools', ?, '{}')
 ON CONFLICT (tool, side, path) DO NOTHING"""
SELECT_SIDE = "SELECT path, counts FROM mapping_paths WHERE tool = ? AND side = ?"
UPSERT_RELEASES = """INSERT INTO tool_releases (tool, state) VALUES (?, ?)
 ON CONFLICT (tool) DO UPDATE SET state = excluded.state"""


class InferenceState:
    """Path counts, release state and the inference change log of each tool."""

    def path_counts(self, tool: str) -> dict:
        """Return {(side, path): counts} of a tool: how many calls held each leaf."""
        return {
            (side, path): loads(counts)
            for side, path, counts in self.db.execute(SELECT_PATHS, (tool,))
        }

    def side_counts(self, tool: str, side: str) -> dict:
        """Return {(side, path): counts} of one side of a tool's path counts."""
        return {(side, path): loads(c) for path, c in self.db.execute(SELECT_SIDE, (tool, side))}

    def service_tools(self, host: str) -> list[str]:
        """Return the tools whose requests went to a host: one service's tools."""
        return [path for path, _ in self.db.execute(SELECT_SIDE, (SERVICE + host, "tools"))]

    def add_service_tool_in(self, conn, host: str, tool: str) -> None:
        """Note, in the caller's transaction, that a tool's requests go to a host."""
        conn.execute(ADD_MEMBER, (SERVICE + host, tool))

    def release_state(self, tool: str) -> dict:
        """Return the tool's release state {"newest", "seen"}.

        {} before any call named a release."""
        row = self.db.execute("SELECT state FROM tool_releases WHERE tool = ?", (tool,)).fetchone()
        return loads(row[0]) if row else {}

    def _add_paths(self, conn, tool: str, per_call: list[dict], fold, newest_changed: bool) -> None:
        """Add calls' path counts inside add_evidence's transaction.

        Folding the newest release's first."""
        stored = {(s, p): loads(c) for s, p, c in conn.execute(SELECT_PATHS, (tool,))}
        changed = set()
        if newest_changed:
            stored = {key: fold(counts) for key, counts in stored.items()}
            changed = set(stored)
        room = MAX_PATHS_PER_TOOL - len(stored)
        for delta in per_call:
            for key, counts in delta.items():
                if key not in stored:
                    if room <= 0:
                        continue
                    room -= 1
                total = stored.setdefault(key, {})
                for name, n in counts.items():
                    total[name] = total.get(name, 0) + n
                changed.add(key)
        conn.executemany(UPSERT_PATH, [(tool, s, p, dumps(stored[(s, p)])) for s, p in changed])

    def _set_releases(self, conn, tool: str, state: dict) -> None:
        conn.execute(UPSERT_RELEASES, (tool, dumps(state)))

    def _log_change(self, conn, tool: str, before, after, reanalysed: int) -> None:
        """Record which inferred pairs a change added and removed.

        When, and under which newest release."""
        old, new = {tuple(p) for p in before}, {tuple(p) for p in after}
        row = conn.execute("SELECT state FROM tool_releases WHERE tool = ?", (tool,)).fetchone()
        release = loads(row[0]).get("newest") if row else None
        conn.execute(
            "INSERT INTO inference_changes (tool, changed_at, added, removed, release, reanalysed) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (
                tool,
                utc_now(),
                dumps(sorted(new - old)),
                dumps(sorted(old - new)),
                release,
                reanalysed,
            ),
        )

    def inference_changes(self, tool: str, limit: int = CHANGES_SHOWN) -> list[dict]:
        """Return a tool's inference changes, newest first.

        When, pairs added and removed, the release then."""
        rows = self.db.execute(
            "SELECT changed_at, added, removed, release, reanalysed FROM inference_changes "
            "WHERE tool = ? ORDER BY id DESC LIMIT ?",
            (tool, limit),
        ).fetchall()
        return [
            {
                "changed_at": at,
                "added": [tuple(p) for p in loads(added)],
                "removed": [tuple(p) for p in loads(removed)],
                "release": release,
                "reanalysed": n,
            }
            for at, added, removed, release, n in rows
        ]
