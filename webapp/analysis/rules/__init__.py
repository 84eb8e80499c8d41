"""The findings rules.

The mapping, conversions, arrays, the response's checks and the way back."""
