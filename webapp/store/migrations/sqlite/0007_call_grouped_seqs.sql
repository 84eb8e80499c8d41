-- Migration 7 (issue 15): which snapshots a call's problems were last worked out from, `calls.grouped_seqs`
-- ("arguments_seq,request_seq,response_seq"). Grouped again with the same snapshots is a re-analysis
-- (`tracediff reanalyze`, a contract change), which never alerts per problem; new snapshots are news.
ALTER TABLE calls ADD COLUMN grouped_seqs TEXT;
UPDATE calls SET grouped_seqs = coalesce(arguments_seq, '') || ',' || coalesce(request_seq, '') || ','
    || coalesce(response_seq, '') WHERE analyzed_version > 0 AND analyzed_version = version;
