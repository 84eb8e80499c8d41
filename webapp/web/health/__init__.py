"""Liveness and readiness for load balancers and orchestrators.

/api/v1/health and /api/v1/ready."""

from flask import Blueprint, current_app, jsonify

from ...config import token_set
from ...ops import gauges
from ...store import Store, StoreUnavailable, faults, values
from ..render.crowds import crowd_warnings
from . import checks

bp = Blueprint("health", __name__)
# a probe waits this long for the writers' turn, then calls the database busy
PROBE_WAIT_MS = 1_000


@bp.get("/api/v1/health")
def health():
    """Say the process answers, and what cheap checks find wrong.

    Liveness: always 200; what is wrong makes it "degraded"."""
    config = current_app.config
    found = {
        "templates": checks.templates(current_app.template_folder),
        "static": checks.static(current_app.template_folder, current_app.static_folder),
        "database": database_state(config),
    }
    paused = analyser_paused(current_app)
    if paused:
        found["analyser"] = (False, paused)
    counts = {}
    # the trace count only where reading is open to anyone
    if not token_set(config["READ_TOKENS"]):
        # a probe's short wait: a load balancer's check must not time out while the database is down
        try:
            store = Store.from_settings(config, busy_timeout_ms=PROBE_WAIT_MS)
            try:
                counts = {"traces": store.count_traces(), "quarantine": store.quarantine_counts()}
            finally:
                store.close()
            gauges.database_up(True)
        # liveness: the process answers even when its database does not
        except StoreUnavailable as error:
            found["database"] = (False, f"unavailable ({error})")
            gauges.database_up(False)
    problems = [f"{name}: {detail}" for name, (ok, detail) in found.items() if not ok]
    body = {"status": "degraded", "problems": problems} if problems else {"status": "ok"}
    return jsonify({**body, **counts})


def analyser_paused(app) -> str | None:
    """Say why this process's analyser is paused (a nearly full disk), if it is."""
    analyser = app.extensions.get("tracediff.analyser")
    return analyser.headroom.problem() if analyser is not None else None


def database_state(config) -> tuple[bool, str]:
    """Check the database file can be written.

    After a write of this process failed for the disk's sake (full, read-only), write once to see
    whether it takes writes again, as readiness would."""
    if faults.current() is None:
        return checks.file_writable(config["DATABASE"])
    try:
        store = Store.from_settings(config, busy_timeout_ms=PROBE_WAIT_MS)
    except StoreUnavailable as error:
        return False, f"cannot be opened: {error}"
    try:
        return checks.database(store)
    finally:
        store.close()


@bp.get("/api/v1/ready")
def ready():
    """Say whether this server can do its job.

    200, or 503 in the error shape with what failed."""
    found = run_checks(current_app)
    # what looks misconfigured is said, never a reason to take the node out of the load balancer
    warnings = found.pop("warnings")
    failed = [f"{name}: {check['detail']}" for name, check in found.items() if not check["ok"]]
    if not failed:
        return jsonify(status="ready", checks=found, warnings=warnings)
    # the one error shape, with every check beside it
    error = {"code": "not_ready", "message": "; ".join(failed), "retryable": True}
    headers = {"Retry-After": str(current_app.config["RETRY_AFTER"])}
    return jsonify(error=error, checks=found, warnings=warnings), 503, headers


def run_checks(app) -> dict:
    """Run every readiness check.

    Return {name: {"ok", "detail"}}, and under "warnings" what looks misconfigured."""
    config = app.config
    warnings = []
    found = {
        "templates": checks.templates(app.template_folder),
        "static": checks.static(app.template_folder, app.static_folder),
        "disk": checks.disk(config["DATABASE"], config["READY_MIN_FREE_MB"]),
    }
    try:
        store = Store.from_settings(config, busy_timeout_ms=PROBE_WAIT_MS)
    except StoreUnavailable as error:
        found["database"] = (False, f"cannot be opened: {error}")
        gauges.database_up(False)
    else:
        gauges.database_up(True)
        try:
            found["database"] = checks.database(store)
            found["analyser"] = checks.analyser(store, config["ANALYZER"], config["READY_MAX_LAG"])
            if paused := analyser_paused(app):
                # its lag says whether that takes the node out; the detail says why it grows
                found["analyser"] = (found["analyser"][0], f"{found['analyser'][1]}; {paused}")
            warnings = crowd_warnings(values.crowds(store, config["CROWD_THRESHOLD"]))
        except StoreUnavailable as error:
            found["analyser"] = (False, f"cannot read the backlog: {error}")
        finally:
            store.close()
    return {name: {"ok": ok, "detail": detail} for name, (ok, detail) in found.items()} | {
        "warnings": warnings
    }
