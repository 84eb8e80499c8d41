"""Pair the fields of two documents.

The structural walk, then moves, renames and one assignment."""
