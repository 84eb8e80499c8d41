"""Pair the fields of two documents: the structural walk, then moves, renames and one assignment."""
