"""The HTML pages' blueprints, each with its `.json` twin.

Thin adapters that hand render/ what to show."""
