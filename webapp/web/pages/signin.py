"""Signing a browser in, and every page saying who is signed in.

`GET /signin?next=` asks for the token that opens the pages' forms (HTTP Basic auth), then sends the
browser back.

Reading is open when no read token is set, so no page ever challenges such a browser, and it would
never send the admin token the forms need. /signin is the one page that challenges until it gets
that token. Its path is at the root on purpose: a browser sends a Basic credential, unasked, to
every path at or below the directory of the URL that was challenged, so a credential given here goes
with every later request to the site.
"""

from urllib.parse import urlsplit

from flask import Blueprint, redirect, render_template, request, url_for

from .. import throttle
from ..errors import ApiError
from ..security import (
    BASIC_CHALLENGE,
    SETTINGS,
    basic_password,
    bearer_token,
    changing_scope,
    keyring,
    may_change_contracts,
)

bp = Blueprint("signin", __name__)
MAX_NEXT = 2048


def safe_next(value: str) -> str | None:
    """Return `value` if it is a path on this site, else None.

    Never another host (no open redirect)."""
    if not value:
        return "/"
    # browsers drop tabs and newlines from URLs and read "\" as "/", so "/\t/evil.example" and
    # "/\evil.example" would leave the site; refuse every control character and backslash rather
    # than clean them out
    if len(value) > MAX_NEXT or any(ch < " " or ch in "\x7f\\" for ch in value):
        return None
    parts = urlsplit(value)
    if not value.startswith("/") or value.startswith("//") or parts.scheme or parts.netloc:
        return None
    return value


def here() -> str:
    """The path (and query) a page was asked for, to return to after signing in.

    A form's refusal comes back to the page that sent it."""
    if request.method == "GET":
        return request.full_path.rstrip("?")
    referrer = urlsplit(request.referrer or "")
    if request.referrer and f"{referrer.scheme}://{referrer.netloc}/" == request.host_url:
        path = (
            referrer.path[len(request.script_root) :]
            if referrer.path.startswith(request.script_root)
            else "/"
        )
        return (path or "/") + (f"?{referrer.query}" if referrer.query else "")
    return "/"


def signed_in():
    """The token this request carries (Bearer, or a browser's Basic password), or None."""
    ring = keyring()
    return ring.find(bearer_token()) or ring.find(basic_password())


def identity() -> dict:
    """What every page says about signing in.

    Who is signed in (a token's name, never its secret), and where a browser signs in to use the
    forms when it cannot yet."""
    # its token is not compared: a page must not say whether it was right
    if throttle.slowed():
        return {"signed_in": None, "signin_url": None}
    token = signed_in()
    needs_signin = keyring().configured(changing_scope()) and not may_change_contracts()
    return {
        "signed_in": token,
        "signin_url": url_for("signin.signin", next=here()) if needs_signin else None,
    }


@bp.get("/signin")
def signin():
    """Challenge until the browser sends the changing token, then go to `next`.

    401 with Basic, until the browser sends the token that changes things."""
    target = safe_next(request.args.get("next", ""))
    # refused before any challenge: a crafted link never even asks for a password
    if target is None:
        raise ApiError(
            400, "bad_parameter", "next must be a path on this site, such as /problems/TD-1"
        )
    if may_change_contracts():
        return redirect(request.script_root + target, code=303)
    setting = f"TRACEDIFF_{SETTINGS[changing_scope()]}"
    headers = {"WWW-Authenticate": BASIC_CHALLENGE, "Cache-Control": "no-store"}
    return render_template("signin.html", setting=setting, back=target), 401, headers


def init_app(app) -> None:
    app.register_blueprint(bp)
    app.context_processor(identity)
