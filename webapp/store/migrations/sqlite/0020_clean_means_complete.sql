-- Migration 20 (issue 33): a trace is clean only when every call received its arguments, request and response
-- (a call missing a stage compared nothing there), so the clean filter's partial index holds `complete = 1` too;
-- its WHERE must match listing.py's SEVERITY_CONDITIONS["clean"].
DROP INDEX IF EXISTS traces_worst_clean;
CREATE INDEX IF NOT EXISTS traces_worst_clean ON traces (last_ts, trace_id)
    WHERE worst IN ('clean', 'info') AND complete = 1;
