"""The findings rules: the mapping, conversions, arrays, the response's checks and the way back."""
