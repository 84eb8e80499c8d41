-- Migration 18 on PostgreSQL (issue 34), as SQLite's: the parts of a rule's webhook URL it marks secret (query
-- parameter names, path segment numbers), masked wherever the rule is shown (webapp/alerts/secrets.py).
ALTER TABLE alert_rules ADD COLUMN IF NOT EXISTS secret_parts TEXT;
