"""The request as sent.

URL, query, headers, form and GraphQL bodies, where each field travels."""
