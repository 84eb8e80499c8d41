"""Re-analysis, told apart from news.

A call grouped again from the very snapshots it was grouped from before.

`tracediff reanalyze` and a contract change bump a call's version without new events; such a call
may open, regress or escalate nothing on its own. Problems it opens still open, and fold into one
summary.
"""

# A call whose grouped_seqs equal its seqs_key is grouped again (a re-analysis); any other call is
# news, and its snapshots are remembered here. Written with the call's new problem_paths
# (store/exposure.py) in one UPDATE: a calls row holds the analysis, and each UPDATE writes the
# whole row again. NULL leaves a column as it is (neither is ever set to NULL).
MARK_GROUPED = """UPDATE calls SET grouped_seqs = coalesce(?, grouped_seqs), problem_paths =
  coalesce(?, problem_paths)
 WHERE trace_id = ? AND call_id = ?"""


def seqs_key(arguments_seq, request_seq, response_seq, result_seq=None) -> str:
    """Return the key of a call's snapshots as migration 0007 writes it.

    "12,13," when there is no response.

    A call's result, when it has one, adds a fourth part ("12,13,14,15"), so a call without one
    keeps its key."""
    key = ",".join(
        "" if seq is None else str(seq) for seq in (arguments_seq, request_seq, response_seq)
    )
    return key if result_seq is None else f"{key},{result_seq}"
