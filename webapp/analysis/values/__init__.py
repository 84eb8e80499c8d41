"""JSON values and what they say.

Text readings, field names, units, how one value became another."""
