-- Migration 17 (issue 26): the analyser claims pending calls oldest first, by this index of their times, so a tool's
-- observed shapes learn its calls in the order they were made, from a backlog or `tracediff reanalyze` too.
CREATE INDEX IF NOT EXISTS calls_pending_by_time ON calls (first_ts) WHERE analyzed_version < version;
