"""Redaction before storage: secrets under known keys, in URLs and in values become a marker.
Pure."""
