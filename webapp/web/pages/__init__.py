"""The HTML pages' blueprints, each with its `.json` twin: thin adapters that hand render/ what to
show."""
