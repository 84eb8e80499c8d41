"""Domain-neutral helpers every layer may use: the stored form of times, scoped tokens, the JSON
codec."""
