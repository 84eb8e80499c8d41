"""Twilio, as twilio-labs/mcp calls the REST API from its OpenAPI description.

Unseen: written for the third unseen part, measured before any change made for it.

Read: twilio-labs/mcp packages/openapi-mcp-server/src/server.ts, utils/http.ts, utils/loadTools.ts,
utils/readSpecs.ts and packages/mcp/src/server.ts, utils/general.ts at 64c0f05. One tool per
operation of `twilio_api_v2010.yaml`, named `TwilioApiV2010--<operationId>`; its input schema is
the operation's parameters and form properties, each only `{type, description}` (formats, enums and
bounds dropped). The handler hands the arguments object as the body: `interpolateUrl` fills the
path's `{AccountSid}` and `{Sid}` (inside `{Sid}.json`) from it, and nothing else is read for a GET
(query parameters such as `PageSize` or `To` never reach the wire: Twilio answers its default page
of 50). A POST of a form operation sends every argument, path ones included, as
`qs.stringify` of the object in the model's key order, a list (`MediaUrl`) as its JSON text. An
`AccountSid` that is not `AC` + 32 hex is replaced by the configured account's. Headers: the
operation's content type, Basic auth of the API key, `x-mcp-server-id` and `user-agent`
`twilio-openapi-mcp-server/0.7.0`. A success is handed back as the JSON indented by 2; an error
answer (Twilio's `{code, message, more_info, status}`, a 401 with `detail`) is thrown with the
body's text as its message, which the SDK's low-level server answers as a JSON-RPC error.
"""

import json
from datetime import UTC, datetime
from email.utils import format_datetime

from .model import (
    NOBODY,
    Answer,
    Bug,
    Source,
    Tool,
    Wire,
    drop,
    edit,
    jsonrpc_error,
    leak,
    lose,
    mcp_text,
    path_segment,
    rename,
    some,
)

COMMIT = "64c0f059d3cdc8f0e6fd796a1f76d872f78a1c2c"
REPO = "twilio-labs/mcp"
API = "https://api.twilio.com/2010-04-01/Accounts"
AGENT = "twilio-openapi-mcp-server/0.7.0"
# the account the server was started with (the system prompt tells the model to use it)
ACCOUNT = "AC3f8e2b9d41c07a65e2d1b0c9f4a8e7d3"
OTHER_ACCOUNT = "ACb41d7e02c95f3a6811e0d2c7b9f4a365"
NUMBERS = ["+14155550117", "+12065550142", "+447700900123", "+33612345678"]
SENDERS = ["+14155552671", "+18005550199"]
TEXTS = [
    "Your order #4821 has shipped.",
    "Reminder: dentist tomorrow at 9:30",
    "Código de verificación: 482913",
    "Meeting moved to 3pm, same room",
]
DESCRIPTION = "Twilio - Api: This is the public Twilio REST API. "


def headers(form: bool) -> dict:
    kind = "application/x-www-form-urlencoded" if form else "application/json"
    return {
        "Content-Type": kind,
        "Authorization": "Basic [REDACTED]",
        "x-mcp-server-id": AGENT,
        "user-agent": AGENT,
    }


def hex32(rng) -> str:
    return f"{rng.getrandbits(128):032x}"


def sid(prefix: str, rng) -> str:
    return prefix + hex32(rng)


def account_of(args) -> str:
    """The account the layer uses: the model's when it is an account SID, else the configured."""
    given = args.get("AccountSid")
    valid = isinstance(given, str) and len(given) == 34 and given.startswith("AC")
    return given if valid and all(c in "0123456789abcdefABCDEF" for c in given[2:]) else ACCOUNT


def account_arg(rng) -> str:
    """What a model sends as AccountSid: mostly the configured one, now and then a placeholder."""
    roll = rng.random()
    if roll < 0.08:
        return rng.choice(["default", "YOUR_ACCOUNT_SID"])
    return OTHER_ACCOUNT if roll < 0.18 else ACCOUNT


def rfc2822(rng) -> str:
    made = datetime(2026, 11, rng.randint(10, 28), rng.randint(0, 23), rng.randint(0, 59))
    return format_datetime(made.replace(second=rng.randint(0, 59), tzinfo=UTC))


def message(rng, account: str, **given) -> dict:
    ident = sid("SM", rng)
    made = rfc2822(rng)
    base = f"/2010-04-01/Accounts/{account}/Messages/{ident}"
    media = len(given.get("MediaUrl") or [])
    status = given.get("status") or rng.choice(["delivered", "sent", "undelivered"])
    return {
        "account_sid": account,
        "api_version": "2010-04-01",
        "body": given.get("Body", rng.choice(TEXTS)),
        "date_created": made,
        "date_sent": None if status in ("queued", "accepted") else made,
        "date_updated": made,
        "direction": "outbound-api",
        "error_code": 30003 if status == "undelivered" else None,
        "error_message": "Unreachable destination handset" if status == "undelivered" else None,
        "from": given.get("From", rng.choice(SENDERS)),
        "messaging_service_sid": given.get("MessagingServiceSid"),
        "num_media": str(media),
        "num_segments": "1",
        "price": None if status in ("queued", "accepted") else "-0.00790",
        "price_unit": "USD",
        "sid": ident,
        "status": status,
        "subresource_uris": {"media": f"{base}/Media.json"},
        "tags": None,
        "to": given.get("To", rng.choice(NUMBERS)),
        "uri": f"{base}.json",
    }


def twilio_error(status: int, code: int, text: str, detail: str | None = None):
    def answer(args, rng):
        body = {"code": code, "message": text.format(**{**args, "AccountSid": account_of(args)})}
        if detail:
            body["detail"] = detail
        body["more_info"] = f"https://www.twilio.com/docs/errors/{code}"
        body["status"] = status
        return Answer(status, body, {"Content-Type": "application/json"})

    return answer


AUTH = twilio_error(
    401,
    20003,
    "Authenticate",
    "Your AccountSid or AuthToken was incorrect.",
)
RATE = twilio_error(429, 20429, "Too Many Requests")
NOT_FOUND = twilio_error(
    404,
    20404,
    "The requested resource /2010-04-01/Accounts/{AccountSid}/Messages/{Sid}.json was not found",
)


def result(args, answer):
    if answer.status < 400:
        return mcp_text(answer.body, indent=2)
    return jsonrpc_error(json.dumps(answer.body))


def prop(kind: str, description: str) -> dict:
    return {"type": kind, "description": description}


ACCOUNT_PROP = prop(
    "string",
    "The SID of the [Account](https://www.twilio.com/docs/iam/api/account) associated with the "
    "Message resources.",
)


def tool_schema(properties: dict, required: list) -> dict:
    return {"type": "object", "properties": properties, "required": required}


def account_segment(segment: str):
    return segment[:2] + segment[2:][::-1] if segment.startswith("AC") else None


# --- TwilioApiV2010--CreateMessage ----------------------------------------------------------------


def create_args(rng):
    args = {"AccountSid": account_arg(rng), "To": rng.choice(NUMBERS)}
    if some(rng, 0.2):
        args["MessagingServiceSid"] = "MG" + "7c2f0a94b1e35d68a0f4c2b9e7d13a58"
    else:
        args["From"] = rng.choice(SENDERS)
    args["Body"] = rng.choice(TEXTS)
    if some(rng, 0.2):
        args["MediaUrl"] = [f"https://demo.twilio.com/owl{rng.randint(1, 9)}.png"]
    if some(rng, 0.15):
        args["StatusCallback"] = "https://hooks.acme.io/twilio/status"
    if some(rng, 0.35):
        rng.shuffle(keys := list(args))
        args = {k: args[k] for k in keys}
    return args


def form_of(args: dict) -> list:
    """The body as `qs.stringify` writes it: each argument in order, objects as JSON text."""
    out = []
    for key, value in args.items():
        if key == "AccountSid":
            value = account_of(args)
        if isinstance(value, (list, dict)):
            value = json.dumps(value, separators=(",", ":"))
        out.append((key, value if isinstance(value, str) else json.dumps(value)))
    return out


def create_request(args):
    url = f"{API}/{account_of(args)}/Messages.json"
    return Wire("POST", url, headers=headers(True), form=form_of(args))


def create_response(args, rng):
    status = "accepted" if "MessagingServiceSid" in args else "queued"
    given = {k: v for k, v in args.items() if k != "AccountSid"}
    return Answer(201, message(rng, account_of(args), **given, status=status))


INVALID_TO = twilio_error(400, 21211, "Invalid 'To' Phone Number: {To}")
UNSUBSCRIBED = twilio_error(400, 21610, "Attempt to send to unsubscribed recipient")

CREATE_MESSAGE = Tool(
    "twilio",
    "TwilioApiV2010--CreateMessage",
    Source(REPO, "packages/openapi-mcp-server/src/utils/http.ts", COMMIT),
    DESCRIPTION + "Send a message",
    tool_schema(
        {
            "AccountSid": ACCOUNT_PROP,
            "To": prop(
                "string",
                "The recipient's phone number in [E.164](https://www.twilio.com/docs/glossary/"
                "what-e164) format (for SMS/MMS) or [channel address](https://www.twilio.com/docs/"
                "messaging/channels), e.g. `whatsapp:+15552229999`.",
            ),
            "StatusCallback": prop(
                "string",
                "The URL of the endpoint to which Twilio sends [Message status callback requests]"
                "(https://www.twilio.com/docs/sms/api/message-resource#twilios-request-to-the-"
                "statuscallback-url).",
            ),
            "MaxPrice": prop(
                "number", "The maximum price in US dollars that you are willing to pay."
            ),
            "ProvideFeedback": prop(
                "boolean", "Boolean indicating whether or not you intend to provide delivery "
            ),
            "ValidityPeriod": prop(
                "integer",
                "The maximum length in seconds that the Message can remain in Twilio's "
                "outgoing message queue.",
            ),
            "From": prop(
                "string",
                "The sender's Twilio phone number (in [E.164](https://en.wikipedia.org/wiki/"
                "E.164) format), [alphanumeric sender ID](https://www.twilio.com/docs/sms/"
                "quickstart), [Wireless SIM](https://www.twilio.com/docs/iot/wireless/"
                "programmable-wireless-send-machine-machine-sms-commands), [short code](https://"
                "www.twilio.com/en-us/messaging/channels/sms/short-codes), or [channel address]"
                "(https://www.twilio.com/docs/messaging/channels) (e.g., `whatsapp:+15554449999`).",
            ),
            "MessagingServiceSid": prop(
                "string",
                "The SID of the [Messaging Service](https://www.twilio.com/docs/messaging/"
                "services) you want to associate with the Message.",
            ),
            "Body": prop(
                "string",
                "The text content of the outgoing message. Can be up to 1,600 characters in "
                "length.",
            ),
            "MediaUrl": {
                "type": "array",
                "description": "The URL of media to include in the Message content.",
                "items": {"type": "string", "description": ""},
            },
            "ContentSid": prop(
                "string",
                "For [Content Editor/API](https://www.twilio.com/docs/content) only: The SID of "
                "the Content Template to be used with the Message, e.g., "
                "`HXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX`.",
            ),
        },
        ["AccountSid", "To"],
    ),
    create_args,
    create_request,
    create_response,
    [INVALID_TO, UNSUBSCRIBED, AUTH, RATE],
    result,
    [
        Bug("renamed_key", rename("form", "Body", "Text"), "/Body", "form:/Body"),
        Bug("dropped", drop("form", "From"), "/From", "form:/From"),
        Bug(
            "value_changed",
            edit("form", "To", lambda v: v.lstrip("+") if v.startswith("+") else None),
            "/To",
            "form:/To",
            single=True,
        ),
        Bug(
            "wrong_path_id",
            path_segment(2, account_segment),
            "/AccountSid",
            "path:/2",
        ),
        Bug("leaked_field", leak("form", "Attempt", "1"), None, "form:/Attempt"),
        Bug("error_fields_lost", lose("/message"), response="/message", error=True),
    ],
)

# --- TwilioApiV2010--ListMessage ------------------------------------------------------------------


def list_args(rng):
    args = {"AccountSid": account_arg(rng)}
    if some(rng, 0.4):
        args["To"] = rng.choice(NUMBERS)
    if some(rng, 0.2):
        args["From"] = rng.choice(SENDERS)
    if some(rng, 0.25):
        args["DateSent>"] = f"2026-11-{rng.randint(1, 20):02d}T00:00:00Z"
    if some(rng, 0.5):
        args["PageSize"] = rng.choice([10, 20, 50])
    return args


def list_request(args):
    # a GET reads only the path's parameters: the query ones are never sent
    url = f"{API}/{account_of(args)}/Messages.json"
    return Wire("GET", url, headers=headers(False), json=NOBODY)


def list_response(args, rng):
    account = account_of(args)
    wanted = {k: args[k] for k in ("To", "From") if k in args}
    found = [message(rng, account, **wanted) for _ in range(rng.randint(0, 3))]
    page = f"/2010-04-01/Accounts/{account}/Messages.json?PageSize=50&Page=0"
    return Answer(
        200,
        {
            "end": max(len(found) - 1, 0),
            "first_page_uri": page,
            "messages": found,
            "next_page_uri": None,
            "page": 0,
            "page_size": 50,
            "previous_page_uri": None,
            "start": 0,
            "uri": page,
        },
    )


def _described(name: str, text: str) -> dict:
    return prop("string", text or f"{name} parameter")


LIST_MESSAGE = Tool(
    "twilio",
    "TwilioApiV2010--ListMessage",
    Source(REPO, "packages/openapi-mcp-server/src/server.ts", COMMIT),
    DESCRIPTION + "Retrieve a list of Message resources associated with a Account",
    tool_schema(
        {
            "AccountSid": ACCOUNT_PROP,
            "To": _described("To", "Filter by recipient. For example: Set this `to` parameter"),
            "From": _described("From", "Filter by sender. For example: Set this `from` parameter"),
            "DateSent": _described("DateSent", "Filter by Message `sent_date`."),
            "DateSent<": _described("DateSent<", "Filter by Message `sent_date`."),
            "DateSent>": _described("DateSent>", "Filter by Message `sent_date`."),
            "PageSize": prop("integer", "How many resources to return in each list page."),
            "Page": prop("integer", "The page index. This value is simply for client state."),
            "PageToken": prop("string", "The page token. This is provided by the API."),
        },
        ["AccountSid"],
    ),
    list_args,
    list_request,
    list_response,
    [AUTH, RATE],
    result,
    [
        Bug("wrong_path_id", path_segment(2, account_segment), "/AccountSid", "path:/2"),
        Bug(
            "wrong_path",
            path_segment(3, lambda seg: "Messages" if seg == "Messages.json" else None),
            None,
            "path:/3",
        ),
        Bug("leaked_field", leak("query", "Status", "delivered"), None, "query:/Status"),
        Bug("dropped", drop("header", "Authorization"), None, "header:/authorization"),
        Bug("error_fields_lost", lose("/message"), response="/message", error=True),
    ],
)

# --- TwilioApiV2010--FetchMessage -----------------------------------------------------------------


def fetch_args(rng):
    return {"AccountSid": account_arg(rng), "Sid": sid("SM", rng)}


def fetch_request(args):
    url = f"{API}/{account_of(args)}/Messages/{args['Sid']}.json"
    return Wire("GET", url, headers=headers(False), json=NOBODY)


def fetch_response(args, rng):
    body = message(rng, account_of(args))
    base = f"/2010-04-01/Accounts/{account_of(args)}/Messages/{args['Sid']}"
    body.update(
        sid=args["Sid"], uri=f"{base}.json", subresource_uris={"media": f"{base}/Media.json"}
    )
    return Answer(200, body)


def sid_segment(segment: str):
    head, _, tail = segment.partition(".")
    return f"{head[:2]}{head[2:][::-1]}.{tail}" if head.startswith("SM") else None


FETCH_MESSAGE = Tool(
    "twilio",
    "TwilioApiV2010--FetchMessage",
    Source(REPO, "packages/openapi-mcp-server/src/utils/http.ts", COMMIT),
    DESCRIPTION + "Fetch a specific Message",
    tool_schema(
        {
            "AccountSid": ACCOUNT_PROP,
            "Sid": prop("string", "The SID of the Message resource to be fetched"),
        },
        ["AccountSid", "Sid"],
    ),
    fetch_args,
    fetch_request,
    fetch_response,
    [NOT_FOUND, AUTH],
    result,
    [
        Bug("wrong_path_id", path_segment(4, sid_segment), "/Sid", "path:/4"),
        Bug(
            "wrong_path_id",
            path_segment(3, lambda seg: "Calls" if seg == "Messages" else None),
            None,
            "path:/3",
        ),
        Bug("leaked_field", leak("query", "PageSize", "50"), None, "query:/PageSize"),
        Bug("error_fields_lost", lose("/message"), response="/message", error=True),
    ],
)

TOOLS = [CREATE_MESSAGE, LIST_MESSAGE, FETCH_MESSAGE]
