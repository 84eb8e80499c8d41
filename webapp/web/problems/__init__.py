"""The problems' HTTP adapters: their pages, their JSON API and their part of the OpenAPI document."""
