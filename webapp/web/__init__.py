"""The web layer: blueprints for the pages and the JSON API, the error shape, security, health, metrics, OpenAPI."""
