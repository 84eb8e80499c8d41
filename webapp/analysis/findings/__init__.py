"""Finding kinds, severities and the finding record; folding one bug's many places into one
finding."""
