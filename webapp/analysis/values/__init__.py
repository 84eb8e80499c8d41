"""JSON values and what they say: text readings, field names, units, how one value became
another."""
