"""The aligned view.

One row per field across the snapshots, built sparse and rebuilt in full."""
