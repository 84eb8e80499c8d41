"""tracediff: the three snapshots of an LLM tool call, side by side, with mapping-aware diffs."""
from pathlib import Path

from flask import Flask

from .config import load_settings

ROOT = Path(__file__).resolve().parent.parent


def create_app(test_config: dict | None = None) -> Flask:
    """Build the Flask app from defaults, TRACEDIFF_* variables and test_config."""
    app = Flask(__name__, template_folder=str(ROOT / "templates"), static_folder=str(ROOT / "static"))
    app.config.update(load_settings(test_config))
    app.config["MAX_CONTENT_LENGTH"] = app.config["MAX_BODY_BYTES"]
    app.json.sort_keys = False

    from . import alerting, api, db, openapi, quarantine, security, views, worker
    from .alerts import sender

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
