"""Migration 7 (issue 15).

Which snapshots a call's problems were last worked out from, `calls.grouped_seqs`.

"arguments_seq,request_seq,response_seq": a call grouped again with the same snapshots is a
re-analysis (`tracediff reanalyze`, a contract change), which never alerts per problem; new
snapshots are news. Calls already analysed count as grouped, so the first re-analysis after the
upgrade is quiet too.
"""


def migrate(conn) -> None:
    """Add the column where it is missing and fill it.

    Filled for the calls whose analysis is up to date."""
    if "grouped_seqs" not in {row[1] for row in conn.execute("PRAGMA table_info(calls)")}:
        conn.execute("ALTER TABLE calls ADD COLUMN grouped_seqs TEXT")
    conn.execute(
        "UPDATE calls SET grouped_seqs = coalesce(arguments_seq, '') || ',' || "
        "coalesce(request_seq, '')"
        " || ',' || coalesce(response_seq, '') WHERE grouped_seqs IS NULL AND analyzed_version > 0"
        " AND analyzed_version = version"
    )
