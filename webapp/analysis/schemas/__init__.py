"""JSON Schema: validate a snapshot (jsonschema-rs first, jsonschema to describe), ask what it
declares."""
