-- Migration 7 on PostgreSQL (issue 15): `calls.grouped_seqs`, as SQLite's migration 7 adds it ("arguments_seq,
-- request_seq,response_seq" a call's problems were last worked out from; the same again is a re-analysis).
ALTER TABLE calls ADD COLUMN IF NOT EXISTS grouped_seqs TEXT;
UPDATE calls SET grouped_seqs = coalesce(arguments_seq::text, '') || ',' || coalesce(request_seq::text, '') || ','
    || coalesce(response_seq::text, '') WHERE grouped_seqs IS NULL AND analyzed_version > 0
    AND analyzed_version = version;
