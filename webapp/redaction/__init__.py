"""Redaction before storage.

Secrets under known keys, in URLs and in values become a marker. Pure."""
