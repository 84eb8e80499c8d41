"""What the pages show, built from stored data.

The aligned view, the JSON trees, charts, compare; no routes."""
