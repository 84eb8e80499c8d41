"""Tool contracts: stored per tool name.

With the calls of a tool re-analysed on change."""

from .codec import dumps, loads, utc_now

UPSERT_TOOL = (
    "INSERT INTO tools (name, contract, updated_at) VALUES (?, ?, ?) "
    "ON CONFLICT(name) DO UPDATE SET contract = excluded.contract, updated_at = excluded.updated_at"
)


class ToolContracts:
    """Create, read, change, list and delete contracts (mixed into Store)."""

    def put_tool(self, name: str, contract: dict) -> None:
        """Create or replace a tool's contract and mark its calls for re-analysis."""
        with self.write() as conn:
            self._put_tool_in(conn, name, contract)

    def change_tools(self, changes: dict) -> dict[str, dict]:
        """Change contracts in one transaction.

        Each `changes[name](stored)` is given the stored contract (as get_tool returns it, or None)
        and returns the new one, or None to leave it; return the contracts changed, as they now are.

        Each tool's read and write happen as its one writer (SQLite's write transaction; an advisory
        lock per tool on PostgreSQL, which also holds for a tool not stored yet), so a change made
        meanwhile is never overwritten. What a change raises rolls every change back."""
        saved = {}
        with self.write() as conn:
            # every lock first, always in one order, then the changes
            for name in sorted(changes):
                self.take_turn(conn, f"tool:{name}")
            for name in sorted(changes):
                contract = changes[name](self._tool_in(conn, name))
                if contract is not None:
                    saved[name] = self._put_tool_in(conn, name, contract)
        return saved

    def change_tool(self, name: str, change) -> dict | None:
        """Change one contract as change_tools does.

        Return it as it now is (None: left alone)."""
        return self.change_tools({name: change}).get(name)

    def _tool_in(self, conn, name: str) -> dict | None:
        row = conn.execute(
            "SELECT contract, updated_at FROM tools WHERE name = ?", (name,)
        ).fetchone()
        return None if row is None else {"name": name, **loads(row[0]), "updated_at": row[1]}

    def _put_tool_in(self, conn, name: str, contract: dict) -> dict:
        now = utc_now()
        conn.execute(UPSERT_TOOL, (name, dumps(contract), now))
        conn.execute("UPDATE calls SET version = version + 1 WHERE tool = ?", (name,))
        return {"name": name, **contract, "updated_at": now}

    def get_tool(self, name: str) -> dict | None:
        row = self._one("SELECT * FROM tools WHERE name = ?", (name,))
        return (
            None
            if row is None
            else {"name": name, **loads(row["contract"]), "updated_at": row["updated_at"]}
        )

    def list_tools(self) -> list[dict]:
        rows = self.db.query("SELECT name, contract, updated_at FROM tools ORDER BY name")
        return [
            {"name": r["name"], **loads(r["contract"]), "updated_at": r["updated_at"]} for r in rows
        ]

    def tools_page(self, after: str, limit: int) -> list[dict]:
        """Return up to `limit` contracts of tools named after `after`.

        In name order (by the table's key)."""
        rows = self.db.query(
            "SELECT name, contract, updated_at FROM tools WHERE name > ? ORDER BY name LIMIT ?",
            (after, limit),
        )
        return [
            {"name": r["name"], **loads(r["contract"]), "updated_at": r["updated_at"]} for r in rows
        ]

    def delete_tool(self, name: str) -> bool:
        with self.write() as conn:
            deleted = conn.execute("DELETE FROM tools WHERE name = ?", (name,)).rowcount
            conn.execute("UPDATE calls SET version = version + 1 WHERE tool = ?", (name,))
        return bool(deleted)
