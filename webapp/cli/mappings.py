"""`tracediff tools map TOOL seats=quantity ...`.

Declare argument -> request pairs in a contract."""

import re
import sqlite3

import click

from ..common.words import counted

# A declared transform after the request field: a scale (x100, /1000) or a change A>B
# (integer>string). \d is 0-9 only, as int() and times read them
_TRANSFORM = re.compile(r"^(?:[x/]\d+(?:\.\d+)?|[A-Za-z0-9_-]+>[A-Za-z0-9_-]+)$", re.ASCII)


def parse_pair(text: str, way_back: bool = False) -> tuple:
    """Read ARGUMENT=REQUEST[:TRANSFORM] (RESPONSE=RESULT[:TRANSFORM] with --result).

    Plain names are top-level keys, "/a/b" a JSON Pointer."""
    from ..analysis import LOCATIONS, is_located_path

    left, sep, right = text.partition("=")
    head, colon, tail = right.rpartition(":")
    # path:/2 is the third path segment, never the key "path" divided by 2
    transform = tail if colon and head not in ("", *LOCATIONS) and _TRANSFORM.match(tail) else None
    if transform:
        right = head
    if not sep or not left or not right:
        raise click.BadParameter(
            f"{text!r}: expected ARGUMENT=REQUEST[:TRANSFORM], e.g. seats=quantity, /a/b=/c or "
            "amount=amount_cents:x100"
        )
    _refuse_unknown_transform(text, right, colon and head and not transform and tail)
    _refuse_unknown_transform_outside_the_body(text, head, colon and not transform and tail)
    pair = (_pointer(left, text), _pointer(right, text))
    if way_back and any(is_located_path(p) for p in pair):
        raise click.BadParameter(f"{text!r}: a response or result field is a JSON Pointer, /a/b")
    return (*pair, transform) if transform else pair


def _refuse_unknown_transform(text: str, right: str, tail) -> None:
    """Refuse a plain request name ending in `:WORD` that is no transform.

    A typo (`amount:X100`) would else be declared as a key no request holds."""
    from ..analysis import is_located_path

    if tail and not right.startswith("/") and not is_located_path(right):
        raise click.BadParameter(
            f"{text!r}: {tail!r} is not a transform (x100, /1000, integer>string, lower>UPPER, "
            f"...); a request key holding ':' is written as a JSON Pointer, /{right}"
        )


def _refuse_unknown_transform_outside_the_body(text: str, head: str, tail) -> None:
    """Refuse `query:/x:WORD` (or header:, path:...) when WORD is no transform.

    A typo (`query:/x:bogus`) would else be declared as a query key no request holds."""
    from ..analysis import is_located_path

    if tail and is_located_path(head):
        raise click.BadParameter(
            f"{text!r}: {tail!r} is not a transform (x100, /1000, integer>string, lower>UPPER, "
            f"...); a key holding ':' outside the body is declared in the contract's mapping"
        )


def _pointer(name: str, text: str) -> str:
    from ..analysis import is_located_path
    from ..common.pointers import child, is_pointer

    # a request field outside the body: query:/page_size, path:/invoiceId
    if is_located_path(name):
        return name
    if name.startswith("/"):
        if not is_pointer(name):
            raise click.BadParameter(
                f"{text!r}: {name!r} is not a JSON Pointer (escape ~ as ~0, / as ~1)"
            )
        return name
    return child("", name)


@click.command("map")
@click.argument("tool")
@click.argument("pairs", nargs=-1, required=True)
@click.option(
    "--result",
    "way_back",
    is_flag=True,
    help="Declare RESPONSE=RESULT pairs instead: the result field that hands a response field "
    "back to the model (id=booking_id).",
)
@click.option(
    "--db",
    "database",
    envvar="TRACEDIFF_DATABASE",
    default=None,
    help="SQLite database file [env TRACEDIFF_DATABASE; default tracediff.db].",
)
def tools_map(tool, pairs, way_back, database):
    """Declare ARGUMENT=REQUEST[:TRANSFORM] pairs in TOOL's contract mapping.

    seats=quantity, total=cents:x100; with --result, RESPONSE=RESULT pairs."""
    # imported here, as the rest of the CLI does, so `tracediff --help` starts fast
    from .. import pipeline
    from ..config import SettingError, load_settings
    from ..contracts import ContractError
    from ..pipeline import mappings as toolmappings
    from ..store import Store, StoreUnavailable

    parsed = [parse_pair(p, way_back) for p in pairs]
    stages = toolmappings.RESPONSE_TO_RESULT if way_back else toolmappings.ARGUMENTS_TO_REQUEST
    try:
        settings = load_settings({"DATABASE": database} if database else None)
        store = Store.from_settings(settings, create=True)
    except (SettingError, sqlite3.Error, OSError, StoreUnavailable) as error:
        raise click.ClickException(f"cannot open the database: {error}") from None
    try:
        contract = toolmappings.declare(store, tool, parsed, stages)
    except ContractError as error:
        raise click.ClickException(str(error)) from None
    analysed = pipeline.catch_up(store)
    for left, right, *transform in parsed:
        shown = f"{stages[0]}:{left} -> {stages[1]}:{right}" if way_back else f"{left} -> {right}"
        click.echo(f"{tool}: {shown}" + (f" ({transform[0]})" if transform else ""))
    click.echo(
        f"{counted(len(contract.get('mapping') or []), 'mapping')} in the contract; reanalysed "
        f"{counted(analysed, 'call')}"
    )
