"""Finding kinds, severities and the finding record.

Folding one bug's many places into one finding."""
