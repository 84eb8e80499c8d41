"""Seven tools with realistic mapping layers.

Most fields renamed to other words, small and repeated values.

Each tool has an OpenAI-style definition (the contract users have: no mapping declared), a request
schema where the API publishes one, an argument maker, and its mapping layer as (argument, request)
field pairs in the order the code writes the request, plus defaults the code fills in.
"""

DATES = ["2026-09-01", "2026-09-02", "2026-09-05", "2026-10-12", "2026-11-30"]


def _fn(name, description, properties, required):
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": False,
            },
        },
    }


def _int(desc, low=0, high=10):
    return {"type": "integer", "minimum": low, "maximum": high, "description": desc}


def _bool(desc):
    return {"type": "boolean", "description": desc}


def _str(desc, **more):
    return {"type": "string", "description": desc, **more}


def _obj(properties, required=(), closed=True):
    schema = {"type": "object", "properties": properties, "required": list(required)}
    if closed:
        schema["additionalProperties"] = False
    return schema


def _any(*names):
    return _obj({n: {} for n in names}, closed=True)


class Tool:
    """A tool: its definition, request schema and mapping layer.

    How arguments are made and how the mapping layer maps them."""

    def __init__(self, definition, fields, make, defaults=None, request_schema=None, upper=()):
        self.definition, self.fields, self.make = definition, fields, make
        self.defaults, self.request_schema, self.upper = defaults or {}, request_schema, set(upper)
        self.name = definition["function"]["name"]


def book_tickets(rng):
    args = {
        "event_id": f"evt_{rng.randint(100, 999)}",
        "seats": rng.choice([1, 2, 2, 2, 3, 4]),
        "child_count": rng.choice([0, 0, 0, 1, 2]),
        "wheelchair": rng.random() < 0.1,
        "section": rng.choice(["stalls", "balcony", "circle"]),
    }
    if rng.random() < 0.6:
        args["date"] = rng.choice(DATES)
    if rng.random() < 0.3:
        args["promo_code"] = rng.choice(["SUMMER", "VIP10"])
    return args


BOOK_TICKETS = Tool(
    _fn(
        "book_tickets",
        "Book seats for a show",
        {
            "event_id": _str("The show's id"),
            "seats": _int("How many seats", 1),
            "child_count": _int("Children among them (half price)"),
            "wheelchair": _bool("Wheelchair space needed"),
            "section": _str("Part of the hall", enum=["stalls", "balcony", "circle"]),
            "date": _str("Performance date", format="date"),
            "promo_code": _str("Discount code"),
        },
        ["event_id", "seats", "child_count", "section"],
    ),
    [
        ("/event_id", "/eventRef"),
        ("/seats", "/quantity"),
        ("/child_count", "/minors"),
        ("/section", "/zone"),
        ("/wheelchair", "/access/wheelchair"),
        ("/date", "/performanceDate"),
        ("/promo_code", "/voucher"),
    ],
    book_tickets,
    defaults={"/channel": "assistant", "/currency": "EUR"},
    request_schema=_obj(
        {
            "eventRef": {"type": "string"},
            "quantity": {"type": "integer"},
            "minors": {"type": "integer"},
            "zone": {"enum": ["STALLS", "BALCONY", "CIRCLE"]},
            "access": _any("wheelchair"),
            "performanceDate": {"type": "string"},
            "voucher": {"type": "string"},
            "channel": {"type": "string"},
            "currency": {"type": "string"},
        },
        ["eventRef", "quantity"],
    ),
    upper=["/section"],
)


def reserve_table(rng):
    args = {
        "store_id": rng.choice(["st_12", "st_40", "st_77"]),
        "party_size": rng.choice([2, 2, 2, 3, 4, 6]),
        "kids": rng.choice([0, 0, 1, 2]),
        "date": rng.choice(DATES),
        "time": rng.choice(["19:00", "19:30", "20:00", "12:30"]),
        "outdoor": rng.random() < 0.3,
        "high_chair": rng.random() < 0.1,
    }
    if rng.random() < 0.4:
        args["notes"] = rng.choice(["window please", "birthday", "nut allergy"])
    return args


RESERVE_TABLE = Tool(
    _fn(
        "reserve_table",
        "Reserve a table at one of our restaurants",
        {
            "store_id": _str("Restaurant id"),
            "party_size": _int("Number of guests", 1, 20),
            "kids": _int("How many of them are children"),
            "date": _str("Day", format="date"),
            "time": _str("Time of day, HH:MM"),
            "outdoor": _bool("Seat outside"),
            "high_chair": _bool("Needs a high chair"),
            "notes": _str("Anything the restaurant should know"),
        },
        ["store_id", "party_size", "date", "time"],
    ),
    [
        ("/store_id", "/locationId"),
        ("/party_size", "/guests/total"),
        ("/kids", "/guests/children"),
        ("/date", "/slot/day"),
        ("/time", "/slot/at"),
        ("/outdoor", "/preferences/terrace"),
        ("/high_chair", "/preferences/highChair"),
        ("/notes", "/remarks"),
    ],
    reserve_table,
    defaults={"/source": "assistant", "/confirm_by_sms": True},
)


def search_hotels(rng):
    args = {
        "city": rng.choice(["Rome", "Paris", "Lisbon", "Oslo"]),
        "check_in": rng.choice(DATES[:3]),
        "check_out": rng.choice(DATES[3:]),
        "adults": rng.choice([1, 2, 2, 2, 3]),
        "rooms": rng.choice([1, 1, 1, 2]),
        "children": rng.choice([0, 0, 1, 2]),
    }
    for key, make in (
        ("max_price", lambda: rng.choice([100, 150, 200, 300])),
        ("pets", lambda: rng.random() < 0.2),
        ("sort", lambda: rng.choice(["price", "rating", "distance"])),
        (
            "amenities",
            lambda: rng.sample(["wifi", "pool", "parking", "gym", "spa"], rng.randint(1, 3)),
        ),
    ):
        if rng.random() < 0.6:
            args[key] = make()
    return args


SEARCH_HOTELS = Tool(
    _fn(
        "search_hotels",
        "Find hotels with free rooms",
        {
            "city": _str("City"),
            "check_in": _str("Arrival", format="date"),
            "check_out": _str("Departure", format="date"),
            "adults": _int("Adults", 1),
            "rooms": _int("Rooms", 1),
            "children": _int("Children"),
            "max_price": _int("Highest price per night", 0, 10000),
            "pets": _bool("Travelling with a pet"),
            "sort": _str("Order of results", enum=["price", "rating", "distance"]),
            "amenities": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Must-have amenities",
            },
        },
        ["city", "check_in", "check_out", "adults"],
    ),
    [
        ("/city", "/destination"),
        ("/check_in", "/stay/from"),
        ("/check_out", "/stay/to"),
        ("/adults", "/occupancy/grownups"),
        ("/children", "/occupancy/minors"),
        ("/rooms", "/occupancy/units"),
        ("/max_price", "/budget"),
        ("/pets", "/petFriendly"),
        ("/amenities", "/facilities"),
        ("/sort", "/orderBy"),
    ],
    search_hotels,
    defaults={"/page": 1, "/pageSize": 20},
)


def create_task(rng):
    people = ["u_1", "u_2", "u_3", "u_4", "u_5"]
    args = {
        "title": rng.choice(["Fix login", "Write report", "Call supplier", "Plan offsite"]),
        "project_id": rng.choice(["PRJ-1", "PRJ-2"]),
        "priority": rng.choice([1, 2, 2, 3]),
        "estimate_hours": rng.choice([1, 2, 2, 4, 8]),
        "assignees": rng.sample(people, rng.randint(1, 3)),
        "notify": rng.random() < 0.7,
        "private": rng.random() < 0.2,
    }
    if rng.random() < 0.5:
        args["due"] = rng.choice(DATES)
    if rng.random() < 0.4:
        args["labels"] = rng.sample(["bug", "ops", "q3", "urgent"], rng.randint(1, 2))
    return args


CREATE_TASK = Tool(
    _fn(
        "create_task",
        "Create a task in the team's tracker",
        {
            "title": _str("Short title"),
            "project_id": _str("Project key"),
            "priority": _int("1 high .. 3 low", 1, 3),
            "estimate_hours": _int("Estimated effort in hours", 0, 100),
            "assignees": {"type": "array", "items": {"type": "string"}, "description": "User ids"},
            "notify": _bool("Email the assignees"),
            "private": _bool("Only visible to assignees"),
            "due": _str("Due date", format="date"),
            "labels": {"type": "array", "items": {"type": "string"}},
        },
        ["title", "project_id"],
    ),
    [
        ("/title", "/name"),
        ("/project_id", "/projectKey"),
        ("/assignees", "/members"),
        ("/priority", "/prio"),
        ("/estimate_hours", "/effort"),
        ("/due", "/deadline"),
        ("/notify", "/sendEmail"),
        ("/private", "/restricted"),
        ("/labels", "/tags"),
    ],
    create_task,
    defaults={"/status": "open"},
    request_schema=_obj(
        {
            "name": {"type": "string"},
            "projectKey": {"type": "string"},
            "members": {"type": "array"},
            "prio": {"type": "integer"},
            "effort": {"type": "integer"},
            "deadline": {"type": "string"},
            "sendEmail": {"type": "boolean"},
            "restricted": {"type": "boolean"},
            "tags": {"type": "array"},
            "status": {"type": "string"},
        },
        ["name", "projectKey"],
    ),
)


def transfer_money(rng):
    args = {
        "from_account": rng.choice(["acc_1", "acc_2"]),
        "to_account": rng.choice(["acc_7", "acc_8", "acc_9"]),
        "amount": rng.choice([10, 20, 25, 50, 100, 2, 5]),
        "currency": rng.choice(["EUR", "EUR", "USD"]),
        "instant": rng.random() < 0.3,
        "save_payee": rng.random() < 0.5,
    }
    if rng.random() < 0.7:
        args["reference"] = rng.choice(["rent", "dinner", "invoice 42"])
    return args


TRANSFER_MONEY = Tool(
    _fn(
        "transfer_money",
        "Send money between accounts",
        {
            "from_account": _str("Account to debit"),
            "to_account": _str("Payee account"),
            "amount": {"type": "number", "description": "Amount in the currency's units"},
            "currency": _str("ISO currency"),
            "reference": _str("Shown to the payee"),
            "instant": _bool("Instant payment (fee)"),
            "save_payee": _bool("Remember the payee"),
        },
        ["from_account", "to_account", "amount", "currency"],
    ),
    [
        ("/from_account", "/debtor/account"),
        ("/to_account", "/creditor/account"),
        ("/amount", "/value"),
        ("/currency", "/ccy"),
        ("/reference", "/memo"),
        ("/instant", "/express"),
        ("/save_payee", "/remember"),
    ],
    transfer_money,
    defaults={"/requestedBy": "agent", "/dryRun": False},
    request_schema=_obj(
        {
            "debtor": _any("account"),
            "creditor": _any("account"),
            "value": {"type": "number"},
            "ccy": {"type": "string"},
            "memo": {"type": "string"},
            "express": {"type": "boolean"},
            "remember": {"type": "boolean"},
            "requestedBy": {"type": "string"},
            "dryRun": {"type": "boolean"},
        },
        ["debtor", "creditor", "value", "ccy"],
    ),
)


def order_groceries(rng):
    skus = ["milk-1l", "eggs-12", "bread", "apples-1kg", "coffee"]
    args = {
        "store_id": rng.choice(["st_12", "st_40"]),
        "items": [
            {"sku": s, "qty": rng.choice([1, 1, 2, 2, 3])}
            for s in rng.sample(skus, rng.randint(1, 4))
        ],
        "substitutions": rng.random() < 0.5,
        "bag_count": rng.choice([1, 2, 2, 3]),
        "tip": rng.choice([0, 1, 2, 2, 5]),
    }
    if rng.random() < 0.5:
        args["delivery_slot"] = rng.choice(["08-10", "18-20"])
    return args


ORDER_GROCERIES = Tool(
    _fn(
        "order_groceries",
        "Order groceries for delivery",
        {
            "store_id": _str("Store"),
            "items": {
                "type": "array",
                "items": _obj({"sku": _str("Product"), "qty": _int("Quantity", 1)}, ["sku", "qty"]),
            },
            "substitutions": _bool("Allow substitutes"),
            "bag_count": _int("Bags"),
            "tip": _int("Tip for the rider"),
            "delivery_slot": _str("Window, e.g. 18-20"),
        },
        ["store_id", "items"],
    ),
    [
        ("/store_id", "/shopId"),
        ("/items", "/lines"),
        ("/substitutions", "/allowSubs"),
        ("/bag_count", "/bags"),
        ("/tip", "/gratuity"),
        ("/delivery_slot", "/window"),
    ],
    order_groceries,
    defaults={"/express": False},
)


def search_flights(rng):
    args = {
        "origin": rng.choice(["CDG", "LHR", "FCO"]),
        "destination": rng.choice(["JFK", "BCN", "OSL"]),
        "date": rng.choice(DATES),
        "passengers": rng.choice([1, 1, 1, 2, 2, 4]),
        "cabin": rng.choice(["economy", "economy", "business"]),
        "direct_only": rng.random() < 0.3,
        "max_stops": rng.choice([0, 1, 1, 2]),
        "flexible": rng.random() < 0.2,
    }
    return args


SEARCH_FLIGHTS = Tool(
    _fn(
        "search_flights",
        "Search flights",
        {
            "origin": _str("IATA code"),
            "destination": _str("IATA code"),
            "date": _str("Day", format="date"),
            "passengers": _int("Travellers", 1, 9),
            "cabin": _str("Cabin", enum=["economy", "business"]),
            "direct_only": _bool("Non-stop only"),
            "max_stops": _int("At most this many stops", 0, 3),
            "flexible": _bool("+/- 3 days"),
        },
        ["origin", "destination", "date"],
    ),
    [
        ("/origin", "/from"),
        ("/destination", "/to"),
        ("/date", "/departure"),
        ("/passengers", "/pax"),
        ("/cabin", "/class"),
        ("/direct_only", "/nonstop"),
        ("/max_stops", "/stopsMax"),
        ("/flexible", "/flex"),
    ],
    search_flights,
    defaults={"/currency": "EUR", "/limit": 50},
)


def update_settings(rng):
    # Generic names on both sides, and values that repeat: the worst case for pairing by name or
    # value.
    return {
        "type": rng.choice(["email", "sms", "push"]),
        "value": rng.random() < 0.5,
        "scope": rng.choice(["all", "mentions"]),
        "level": rng.choice([1, 2, 2, 3]),
        "limit": rng.choice([1, 2, 5]),
        "mute": rng.random() < 0.5,
    }


UPDATE_SETTINGS = Tool(
    _fn(
        "update_settings",
        "Change a notification setting",
        {
            "type": _str("Channel", enum=["email", "sms", "push"]),
            "value": _bool("On or off"),
            "scope": _str("Which events", enum=["all", "mentions"]),
            "level": _int("Verbosity", 1, 3),
            "limit": _int("Most per hour", 1, 10),
            "mute": _bool("Silence for a day"),
        },
        ["type", "value"],
    ),
    [
        ("/type", "/channel"),
        ("/value", "/enabled"),
        ("/scope", "/audience"),
        ("/level", "/detail"),
        ("/limit", "/perHour"),
        ("/mute", "/snooze"),
    ],
    update_settings,
    defaults={"/version": 2},
)


TOOLS = [
    BOOK_TICKETS,
    RESERVE_TABLE,
    SEARCH_HOTELS,
    CREATE_TASK,
    TRANSFER_MONEY,
    ORDER_GROCERIES,
    SEARCH_FLIGHTS,
    UPDATE_SETTINGS,
]
