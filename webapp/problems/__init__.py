"""Problems: warning and error findings grouped once by fingerprint.

With their history, reach and state.

Pure logic here (fingerprint, transforms, grouping, states, timeline, nearest clean call, report);
the tables and SQL are the store's (webapp/store/problems.py, problem_reads.py, problem_changes.py);
the web's pages and API, the CLI and webapp/pipeline/strips.py (reads a strip's counts) are the thin
adapters.
"""
