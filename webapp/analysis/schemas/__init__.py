"""JSON Schema: validate a snapshot, ask what a schema declares.

jsonschema-rs validates first, jsonschema describes."""
