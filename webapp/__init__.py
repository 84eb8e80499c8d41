"""tracediff: an LLM tool call's snapshots side by side, with mapping-aware diffs."""

from .common.resources import PACKAGE, ROOT, doc_page, resource_dir  # noqa: F401  (webapp.doc_page())


def create_app(test_config: dict | None = None):
    """Build the Flask app from defaults, TRACEDIFF_* variables and test_config."""
    # here, so that the command line starts without Flask
    from flask import Flask

    from .config import load_settings

    app = Flask(
        __name__,
        template_folder=str(resource_dir("templates")),
        static_folder=str(resource_dir("static")),
    )
    app.config.update(load_settings(test_config))
    app.config["MAX_CONTENT_LENGTH"] = app.config["MAX_BODY_BYTES"]
    app.json.sort_keys = False

    from .ingest import Limits
    from .mcp import http as mcp_http
    from .ops import analyser, logs, sender
    from .redaction.redactor import redactor_for
    from .web import (
        admission,
        converters,
        db,
        handlers,
        health,
        metrics,
        openapi,
        proxies,
        security,
    )
    from .web.api import alerts as alerts_api
    from .web.api import checks as checks_api
    from .web.api import ingest as ingest_api
    from .web.api import mappings as mappings_api
    from .web.api import problems as problems_api
    from .web.api import quarantine as quarantine_api
    from .web.api import releases as releases_api
    from .web.api import tools as tools_api
    from .web.api import traces as traces_api
    from .web.pages import alerts as alerts_pages
    from .web.pages import problems as problems_pages
    from .web.pages import quarantine as quarantine_pages
    from .web.pages import releases as releases_pages
    from .web.pages import signin
    from .web.pages import tools as tools_pages
    from .web.pages import traces as traces_pages
    from .web.pages import values as values_pages
    from .web.render import pages as rendering

    # What ingestion needs from the settings, built once: the store below knows nothing of either.
    app.extensions["tracediff.redactor"] = redactor_for(app.config)
    app.extensions["tracediff.limits"] = Limits(
        max_body_bytes=app.config["MAX_DECOMPRESSED_BYTES"],
        max_depth=app.config["MAX_DEPTH"],
        max_events=app.config["MAX_EVENTS"],
        max_clock_skew_s=app.config["MAX_CLOCK_SKEW_S"],
    )
    # before any blueprint's rules (<int:...>, <tool:name>)
    converters.init_app(app)
    # the bytes of bodies this worker parses at once
    admission.init_app(app)
    db.init_app(app)
    # before the access check, so a refused request has its id
    logs.init_app(app)
    # and its latency
    metrics.init_app(app)
    security.init_app(app)
    # /signin, and who is signed in on every page
    signin.init_app(app)
    proxies.init_app(app)
    # the one error shape, or a page for a person
    handlers.init_app(app)
    # the templates' filters
    rendering.init_app(app)
    app.register_blueprint(health.bp)
    app.register_blueprint(ingest_api.bp)
    app.register_blueprint(traces_api.bp)
    app.register_blueprint(tools_api.bp)
    app.register_blueprint(checks_api.bp)
    app.register_blueprint(traces_pages.bp)
    app.register_blueprint(tools_pages.bp)
    app.register_blueprint(mappings_api.bp)
    app.register_blueprint(quarantine_api.bp)
    app.register_blueprint(quarantine_pages.bp)
    app.register_blueprint(alerts_api.bp)
    app.register_blueprint(alerts_pages.bp)
    app.register_blueprint(openapi.bp)
    app.register_blueprint(problems_api.bp)
    app.register_blueprint(problems_pages.bp)
    app.register_blueprint(releases_api.bp)
    app.register_blueprint(releases_pages.bp)
    app.register_blueprint(values_pages.bp)
    # /mcp: the MCP server, its tools reading the API above
    app.register_blueprint(mcp_http.bp)
    analyser.init_app(app)
    sender.init_app(app)
    return app
