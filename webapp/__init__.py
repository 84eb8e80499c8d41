"""tracediff: the three snapshots of an LLM tool call, side by side, with mapping-aware diffs."""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def create_app(test_config: dict | None = None):
    """Build the Flask app from defaults, TRACEDIFF_* variables and test_config."""
    from flask import Flask   # here, so that the command line starts without Flask

    from .config import load_settings

    app = Flask(__name__, template_folder=str(ROOT / "templates"), static_folder=str(ROOT / "static"))
    app.config.update(load_settings(test_config))
    app.config["MAX_CONTENT_LENGTH"] = app.config["MAX_BODY_BYTES"]
    app.json.sort_keys = False

    from . import alerting, api, db, openapi, quarantine, security, views, worker
    from .alerts import sender
    from .ingest import Limits
    from .redact import redactor_for

    # What ingestion needs from the settings, built once: the store below knows nothing of either.
    app.extensions["tracediff.redactor"] = redactor_for(app.config)
    app.extensions["tracediff.limits"] = Limits(
        max_body_bytes=app.config["MAX_DECOMPRESSED_BYTES"],
        max_depth=app.config["MAX_DEPTH"], max_events=app.config["MAX_EVENTS"])
    db.init_app(app)
    security.init_app(app)
    app.register_blueprint(api.bp)
    app.register_blueprint(views.bp)
    app.register_blueprint(quarantine.bp)
    app.register_blueprint(alerting.bp)
    app.register_blueprint(openapi.bp)
    worker.init_app(app)
    sender.init_app(app)
    return app
