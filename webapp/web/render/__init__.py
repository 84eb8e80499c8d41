"""What the pages show, built from stored data: the aligned view, the JSON trees, charts, compare;
no routes."""
