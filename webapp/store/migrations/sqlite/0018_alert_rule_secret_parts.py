"""Migration 18 (issue 34).

The parts of a rule's webhook URL it marks secret (query parameter names, path segment numbers, as
JSON), masked wherever the rule is shown, as the usual credentials of a URL are
(webapp/alerts/secrets.py).

The column is added only where missing (a database from before numbered migrations runs them all
again).
"""


def migrate(conn) -> None:
    """Add alert_rules.secret_parts where it is missing."""
    if "secret_parts" not in {row[1] for row in conn.execute("PRAGMA table_info(alert_rules)")}:
        conn.execute("ALTER TABLE alert_rules ADD COLUMN secret_parts TEXT")
