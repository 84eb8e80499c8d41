"""The aligned view: one row per field across the snapshots, built sparse and rebuilt in full."""
