"""The JSON API's blueprints, one module a resource: thin adapters over the pipeline and the
store."""
