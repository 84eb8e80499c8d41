"""The web layer: pages/ and api/ route, render/ builds what the pages show.

The modules here serve them all.

Here: the error shape and its handlers, security (tokens, hosts, proxies), request bodies and their
budget, the lists' query strings, the store's life cycle, health, metrics and the OpenAPI document.
"""
