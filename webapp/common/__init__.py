"""Domain-neutral helpers every layer may use.

The stored form of times, scoped tokens, the JSON codec."""
