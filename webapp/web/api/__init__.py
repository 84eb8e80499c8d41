"""The JSON API's blueprints, one module a resource.

Thin adapters over the pipeline and the store."""
