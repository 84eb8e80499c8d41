"""Google Calendar, as a community MCP server calls it through googleapis (Node).

Unseen: written after the analysis was tuned, never tuned on.

Read: nspady/google-calendar-mcp src/handlers/core/DeleteEventHandler.ts,
FreeBusyEventHandler.ts, BaseToolHandler.ts, src/services/CalendarRegistry.ts,
src/utils/datetime.ts, src/utils/response-builder.ts and src/tools/registry.ts at 0f2c9c5 (one
account connected). A calendar given by name ("Team Offsite", any case) is looked up in the
account's calendar list and sent as its id; `primary` and ids with `@` go as they are. googleapis
writes path parameters with encodeURIComponent. `delete-event` sends `DELETE
/calendars/{calendarId}/events/{eventId}?sendUpdates=` (the schema's default `all` when the model
leaves it out); Google answers 204 with no body, and the tool answers `{success, eventId,
calendarId, message}` as compact JSON text. `get-freebusy` posts `{timeMin, timeMax, items,
timeZone}` to `/freeBusy`: a time without an offset is read in `timeZone` (or the primary
calendar's zone, Europe/Berlin here, fetched first) and sent in UTC, `timeZone` always sent; it
hands back the model's own `timeMin`/`timeMax` and each calendar's busy slots (a calendar Google
does not know keeps its `errors`). Google's errors are `{"error": {"errors": [{domain, reason,
message}], "code", "message"}}`; the handler rethrows them as McpError texts ("Resource not
found: Not Found", "Rate limit exceeded. Please try again later. ..."), which the MCP SDK hands
back as `isError` results ("MCP error -32600: ...").
"""

import json
from datetime import datetime, timedelta
from urllib.parse import quote
from zoneinfo import ZoneInfo

from .model import (
    Answer,
    Bug,
    Source,
    Tool,
    Wire,
    as_string,
    day_first,
    drop,
    edit,
    leak,
    lose,
    mcp_text,
    path_segment,
    rename,
    s,
    schema,
)

COMMIT = "0f2c9c5d7d96b63e424f035cca3269f857f3b0e1"
API = "https://www.googleapis.com/calendar/v3"
HEADERS = {
    "x-goog-api-client": "gdcl/8.0.0 gl-node/22.14.0",
    "Accept-Encoding": "gzip",
    "User-Agent": "google-api-nodejs-client/8.0.0 (gzip)",
    "Authorization": "Bearer ya29.a0AcM612x-made-up-access-token",
}
HOME_ZONE = "Europe/Berlin"
# the account's calendar list: name -> id
CALENDARS = {
    "Team Offsite": "c_8f2k1m9q0r4t6v3b5n7p2s1d9g@group.calendar.google.com",
    "On-call": "c_1a2b3c4d5e6f7g8h9i0j@group.calendar.google.com",
    "Holidays in Germany": "en.german#holiday@group.v.calendar.google.com",
}
PEOPLE = ["ana.okafor@acme.io", "bram@acme.io", "chen.li@acme.io"]
ZONES = ["Europe/Berlin", "America/New_York", "Asia/Tokyo", "UTC"]


def calendar_id(name_or_id: str) -> str:
    """The id the layer sends: a name looked up (any case), an id or `primary` as it is."""
    if name_or_id == "primary" or "@" in name_or_id:
        return name_or_id
    for name, ident in CALENDARS.items():
        if name.lower() == name_or_id.lower():
            return ident
    raise KeyError(name_or_id)


def google_error(status: int, reason: str, message: str, domain: str = "global"):
    def answer(args, rng):
        errors = [{"domain": domain, "reason": reason, "message": message}]
        return Answer(status, {"error": {"errors": errors, "code": status, "message": message}})

    return answer


RATE_LIMIT = google_error(429, "rateLimitExceeded", "Rate Limit Exceeded", domain="usageLimits")


def mcp_error(answer: Answer) -> dict:
    """`handleGoogleApiError`'s McpError, as the SDK hands a thrown error back."""
    error = answer.body["error"]
    said = error.get("message")
    status = answer.status
    if status == 404:
        code = -32600
        text = f"Resource not found: {said or 'The requested calendar or event does not exist'}"
    elif status == 403:
        code, text = -32600, f"Access denied: {said or 'Insufficient permissions'}"
    elif status == 429:
        code, text = -32603, f"Rate limit exceeded. Please try again later. {said or ''}"
    elif status == 400:
        details = "; ".join(e.get("message") or e["reason"] for e in error.get("errors", []))
        code = -32600
        text = f"Bad Request: {said or 'Invalid request parameters'}. Details: {details}"
    else:
        code, text = -32600, f"Google API error: {said}"
    return mcp_text(f"MCP error {code}: {text}", is_error=True)


# --- delete-event ---------------------------------------------------------------------------------


def event_id(rng) -> str:
    alphabet = "abcdefghijklmnopqrstuv0123456789"
    return "".join(rng.choice(alphabet) for _ in range(26))


def delete_args(rng):
    where = rng.random()
    if where < 0.5:
        calendar = "primary"
    elif where < 0.75:
        name = rng.choice(list(CALENDARS))
        calendar = rng.choice([name, name.lower()])
    else:
        calendar = rng.choice(list(CALENDARS.values()) + PEOPLE[:1])
    args = {"calendarId": calendar, "eventId": event_id(rng)}
    if rng.random() < 0.4:
        args["sendUpdates"] = rng.choice(["all", "externalOnly", "none"])
    return args


def delete_request(args):
    ident = quote(calendar_id(args["calendarId"]), safe="")
    url = f"{API}/calendars/{ident}/events/{quote(args['eventId'], safe='')}"
    query = [("sendUpdates", args.get("sendUpdates", "all"))]
    return Wire("DELETE", url, query, dict(HEADERS))


def delete_response(args, rng):
    return Answer(204, "")


def delete_result(args, answer):
    if answer.status >= 400:
        return mcp_error(answer)
    out = {
        "success": True,
        "eventId": args["eventId"],
        "calendarId": calendar_id(args["calendarId"]),
        "message": "Event deleted successfully",
    }
    return mcp_text(json.dumps(out, separators=(",", ":")))


DELETE_EVENT = Tool(
    "google_calendar",
    "delete-event",
    Source("nspady/google-calendar-mcp", "src/handlers/core/DeleteEventHandler.ts", COMMIT),
    "Delete a calendar event.",
    schema(
        {
            "account": s(
                "Account nickname (e.g., 'work'). Optional if only one account connected.",
                pattern="^[a-z0-9_-]{1,64}$",
            ),
            "calendarId": s("ID of the calendar (use 'primary' for the main calendar)"),
            "eventId": s("ID of the event to delete"),
            "sendUpdates": s(
                "Whether to send cancellation notifications",
                enum=["all", "externalOnly", "none"],
                default="all",
            ),
        },
        ["calendarId", "eventId"],
    ),
    delete_args,
    delete_request,
    delete_response,
    [
        google_error(404, "notFound", "Not Found"),
        google_error(410, "deleted", "Resource has been deleted"),
        google_error(
            403,
            "forbiddenForNonOrganizer",
            "Shared properties can only be changed by the organizer of the event.",
        ),
        RATE_LIMIT,
    ],
    delete_result,
    [
        Bug(
            "wrong_path_id",
            path_segment(5, lambda v: v[:-1] + ("a" if v[-1] != "a" else "b")),
            "/eventId",
            "path:/5",
        ),
        Bug(
            "enum_case",
            edit("query", "sendUpdates", lambda v: v.upper()),
            "/sendUpdates",
            "query:/sendUpdates",
        ),
        Bug("dropped", drop("query", "sendUpdates"), "/sendUpdates", "query:/sendUpdates"),
        Bug(
            "renamed_key",
            rename("query", "sendUpdates", "sendNotifications"),
            "/sendUpdates",
            "query:/sendUpdates",
        ),
        Bug("error_fields_lost", lose("/error/message"), response="/error/message", error=True),
    ],
)

# --- get-freebusy ---------------------------------------------------------------------------------


def naive(rng, day: int, hour: int) -> str:
    return f"2026-11-{day:02d}T{hour:02d}:00:00"


def freebusy_args(rng):
    day = rng.randint(9, 20)
    span = rng.choice([0, 0, 1, 4])
    args = {
        "calendars": [{"id": c} for c in rng.sample(["primary", *PEOPLE], rng.randint(1, 3))],
        "timeMin": naive(rng, day, rng.choice([0, 8, 9])),
        "timeMax": naive(rng, day + span, rng.choice([17, 18, 23])),
    }
    if rng.random() < 0.25:
        # a model that read the time zone elsewhere sends the offset itself
        args["timeMin"] += "+01:00"
        args["timeMax"] += "+01:00"
    if rng.random() < 0.4:
        args["timeZone"] = rng.choice(ZONES)
    if rng.random() < 0.1:
        args["calendarExpansionMax"] = rng.choice([10, 25, 50])
    return args


def rfc3339(text: str, zone: str) -> str:
    """`convertToRFC3339`: a time with an offset as it is, a naive one read in `zone`, in UTC."""
    if text.endswith("Z") or text[-6] in "+-":
        return text
    local = datetime.fromisoformat(text).replace(tzinfo=ZoneInfo(zone))
    return local.astimezone(ZoneInfo("UTC")).strftime("%Y-%m-%dT%H:%M:%SZ")


def freebusy_request(args):
    zone = args.get("timeZone") or HOME_ZONE
    body = {
        "timeMin": rfc3339(args["timeMin"], zone),
        "timeMax": rfc3339(args["timeMax"], zone),
        "items": args["calendars"],
        "timeZone": zone,
    }
    if "groupExpansionMax" in args:
        body["groupExpansionMax"] = args["groupExpansionMax"]
    if "calendarExpansionMax" in args:
        body["calendarExpansionMax"] = args["calendarExpansionMax"]
    return Wire(
        "POST",
        f"{API}/freeBusy",
        headers={**HEADERS, "Content-Type": "application/json"},
        json=body,
    )


def slot(rng, start: datetime, zone: str) -> dict:
    begin = start + timedelta(hours=rng.randint(0, 6), minutes=rng.choice([0, 30]))
    end = begin + timedelta(minutes=rng.choice([30, 60, 90]))
    tz = ZoneInfo(zone)
    return {
        "start": begin.astimezone(tz).isoformat(),
        "end": end.astimezone(tz).isoformat(),
    }


def freebusy_response(args, rng):
    wire = freebusy_request(args).json
    zone = wire["timeZone"]
    start = datetime.fromisoformat(wire["timeMin"].replace("Z", "+00:00"))
    calendars = {}
    for item in args["calendars"]:
        if item["id"] != "primary" and rng.random() < 0.1:
            calendars[item["id"]] = {
                "errors": [{"domain": "global", "reason": "notFound"}],
                "busy": [],
            }
            continue
        busy = sorted(
            (slot(rng, start, zone) for _ in range(rng.randint(0, 3))), key=lambda b: b["start"]
        )
        calendars[item["id"]] = {"busy": busy}
    body = {
        "kind": "calendar#freeBusy",
        "timeMin": wire["timeMin"].replace("Z", ".000Z"),
        "timeMax": wire["timeMax"].replace("Z", ".000Z"),
        "calendars": calendars,
    }
    return Answer(200, body, {"Content-Type": "application/json; charset=UTF-8"})


def freebusy_result(args, answer):
    if answer.status >= 400:
        return mcp_error(answer)
    calendars = {}
    for item in args["calendars"]:
        data = answer.body["calendars"].get(item["id"])
        if data is None:
            calendars[item["id"]] = {"busy": [], "errors": [{"reason": "notFound"}]}
            continue
        entry = {"busy": [{"start": b["start"], "end": b["end"]} for b in data.get("busy", [])]}
        if data.get("errors"):
            entry["errors"] = [
                {"domain": e["domain"], "reason": e["reason"]} for e in data["errors"]
            ]
        calendars[item["id"]] = entry
    out = {"timeMin": args["timeMin"], "timeMax": args["timeMax"], "calendars": calendars}
    return mcp_text(json.dumps(out, separators=(",", ":")))


FREEBUSY = Tool(
    "google_calendar",
    "get-freebusy",
    Source("nspady/google-calendar-mcp", "src/handlers/core/FreeBusyEventHandler.ts", COMMIT),
    "Query free/busy information for calendars. Note: Time range is limited to a maximum of 3 "
    "months between timeMin and timeMax.",
    schema(
        {
            "account": {
                "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
                "description": "Account nickname(s) to query. Omit to query all accounts.",
            },
            "calendars": {
                "type": "array",
                "description": "List of calendars and/or groups to query for free/busy information",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": s("ID of the calendar (use 'primary' for the main calendar)")
                    },
                    "required": ["id"],
                },
            },
            "timeMin": s("Start of time range (ISO 8601, e.g., '2024-01-01T00:00:00')."),
            "timeMax": s("End of time range (ISO 8601, e.g., '2024-01-31T23:59:59')."),
            "timeZone": s("IANA timezone for the query."),
            "groupExpansionMax": {"type": "integer", "maximum": 100},
            "calendarExpansionMax": {"type": "integer", "maximum": 50},
        },
        ["calendars", "timeMin", "timeMax"],
    ),
    freebusy_args,
    freebusy_request,
    freebusy_response,
    [
        google_error(400, "timeRangeEmpty", "The specified time range is empty."),
        google_error(403, "rateLimitExceeded", "Rate Limit Exceeded", domain="usageLimits"),
        RATE_LIMIT,
    ],
    freebusy_result,
    [
        Bug("date_format", edit("body", "/timeMin", day_first), "/timeMin", "/timeMin"),
        Bug("dropped", drop("body", "/timeZone"), "/timeZone", "/timeZone"),
        Bug(
            "type_changed",
            edit("body", "/calendarExpansionMax", as_string),
            "/calendarExpansionMax",
            "/calendarExpansionMax",
            single=True,
        ),
        Bug("renamed_key", rename("body", "/items", "calendars"), "/calendars", "/items"),
        Bug("leaked_field", leak("body", "/account", "work"), None, "/account"),
        Bug("error_fields_lost", lose("/error/message"), response="/error/message", error=True),
    ],
)

TOOLS = [DELETE_EVENT, FREEBUSY]
