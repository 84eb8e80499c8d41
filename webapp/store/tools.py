"""Tool contracts: stored per tool name, with the calls of a tool re-analysed on change."""

from .codec import dumps, loads, utc_now


class ToolContracts:
    """Create, read, list and delete contracts (mixed into Store)."""

    def put_tool(self, name: str, contract: dict) -> None:
        """Create or replace a tool's contract and mark its calls for re-analysis."""
        with self.write() as conn:
            conn.execute(
                "INSERT INTO tools (name, contract, updated_at) VALUES (?, ?, ?) "
                "ON CONFLICT(name) DO UPDATE SET contract = excluded.contract, "
                "updated_at = excluded.updated_at",
                (name, dumps(contract), utc_now()),
            )
            conn.execute("UPDATE calls SET version = version + 1 WHERE tool = ?", (name,))

    def get_tool(self, name: str) -> dict | None:
        row = self._one("SELECT * FROM tools WHERE name = ?", (name,))
        return None if row is None else {"name": name, **loads(row["contract"]), "updated_at": row["updated_at"]}

    def list_tools(self) -> list[dict]:
        rows = self.db.query("SELECT name, contract, updated_at FROM tools ORDER BY name")
        return [{"name": r["name"], **loads(r["contract"]), "updated_at": r["updated_at"]} for r in rows]

    def delete_tool(self, name: str) -> bool:
        with self.write() as conn:
            deleted = conn.execute("DELETE FROM tools WHERE name = ?", (name,)).rowcount
            conn.execute("UPDATE calls SET version = version + 1 WHERE tool = ?", (name,))
        return bool(deleted)
