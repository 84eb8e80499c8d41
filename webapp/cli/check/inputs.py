"""Read what `tracediff check` checks.

Fixture files, a contract file, folders laid out as the fixtures zip."""

from dataclasses import dataclass, field
from pathlib import Path

from ...analysis import CheckError, call_snapshots
from ...analysis import checked_url as _checked_url
from ...common import jsontext
from ...contracts import (
    ContractError,
    contracts_from_document,
    is_bare_contract,
    load_file,
    validated_contract,
)
from ...ingest.model import json_reason
from ...ingest.records import surrogate_error
from ...reports.exports import CALL_FILE, FIXTURE_FILES


class InputError(Exception):
    """A file `tracediff check` was given that it cannot use.

    One line saying which and why."""

    def __init__(self, message: str, path=None):
        super().__init__(message)
        self.path = None if path is None else str(path)


@dataclass
class Case:
    """One call to check.

    Its snapshots, the files they came from, and its contract."""

    name: str
    # snapshot name -> path, for annotations
    files: dict = field(default_factory=dict)
    snapshots: dict = field(default_factory=dict)
    contract: dict | None = None
    contract_file: str | None = None
    status_known: bool = False
    # why the case cannot be checked (a broken fixture or contract)
    error: str | None = None
    # the file at fault
    error_file: str | None = None


def read_fixture(path: str, snapshot: str):
    """Return a fixture file's JSON.

    A request or response body that is not JSON is its text."""
    try:
        data = Path(path).read_bytes().removeprefix(jsontext.BOM)
    except OSError as error:
        raise InputError(f"{path}: cannot read: {error.strerror or error}", path) from None
    try:
        return jsontext.loads(data)
    except jsontext.JSONDecodeError as error:
        if snapshot == "arguments":
            raise InputError(f"{path} is not JSON: {_json_reason(error)}", path) from None
        # an HTTP body or a result may be text, or broken JSON
        return data.decode("utf-8", "replace")


def _json_reason(error: jsontext.JSONDecodeError) -> str:
    """Say why a fixture is not JSON in the words ingest uses for the same text."""
    # a lone surrogate escape is refused by ingest (POST /api/v1/ingest, tracediff ingest) so
    if "surrogate" in str(error):
        return surrogate_error().message
    return json_reason(error)


def read_contract(path: str, tool: str | None) -> dict:
    """Return the contract of `tool` in any document the API takes.

    Or of the only tool.

    A bare contract (the body of PUT /api/v1/tools/<name>, without `name`) is the contract of
    `tool`, or of the call whatever its tool.
    """
    try:
        document = load_file(path)
        if is_bare_contract(document):
            return {"name": tool, **validated_contract(tool or path, document)}
        contracts = contracts_from_document(document)
        if tool is None and len(contracts) != 1:
            raise InputError(
                f"{path} holds contracts for {len(contracts)} tools; choose one with --tool "
                f"({', '.join(sorted(contracts))})",
                path,
            )
        tool = tool if tool is not None else next(iter(contracts))
        if tool not in contracts:
            raise InputError(
                f"{path} has no contract for tool {tool!r}; it has: {', '.join(sorted(contracts))}",
                path,
            )
        return {"name": tool, **validated_contract(tool, contracts[tool])}
    except ContractError as error:
        message = str(error)
        raise InputError(
            message if message.startswith(str(path)) else f"{path}: {message}", path
        ) from None


def request_http(url: str | None, method: str | None, headers=()) -> dict | None:
    """Return the request's `http` from --url, --method and --header options.

    --header 'Name: Value' options; None without any."""
    if url is None and method is None and not headers:
        return None
    out = {"method": method.upper()} if method else {}
    if url is not None:
        out["url"] = checked_url(url)
    parsed = {}
    for header in headers:
        name, colon, value = header.partition(":")
        if not colon or not name.strip():
            raise InputError(f"--header {header!r}: expected 'Name: value'")
        parsed[name.strip()] = value.strip()
    if parsed:
        out["headers"] = parsed
    return out


def checked_url(url: str) -> str:
    """A URL as a request line or a client logs it.

    Absolute (https://host/path?query) or a path (/path?query)."""
    try:
        return _checked_url(url)
    except CheckError as error:
        raise InputError(f"--{error}") from None


def single_case(
    files: dict,
    status: int | None,
    contract_file: str | None,
    tool: str | None,
    http: dict | None = None,
    result_is_error: bool | None = None,
) -> Case:
    """Read the call given by --arguments, --request and --response.

    Files as snapshot -> path, and the request's method, URL and headers (`http`): a request given
    by its URL alone has no body."""
    files = {name: path for name, path in files.items() if path is not None}
    payloads = {name: read_fixture(path, name) for name, path in files.items()}
    snapshots = call_snapshots(payloads, status, http, result_is_error)
    contract = read_contract(contract_file, tool) if contract_file else None
    return Case("check", files, snapshots, contract, contract_file, status is not None)


def fixture_folders(roots) -> list[Path | InputError]:
    """Return every folder under the roots that holds a fixture file, in order.

    A root with none is its InputError, in its place; refuse roots that all hold none."""
    found: list[Path | InputError] = []
    for root in map(Path, roots):
        folders = sorted(p for p in [root, *root.rglob("*")] if p.is_dir() and _holds_fixtures(p))
        if not folders:
            found.append(
                InputError(f"{root} holds no fixture folder ({', '.join(_FOLDER_FILES)})", root)
            )
        found += [folder for folder in folders if folder not in found]
    if all(isinstance(item, InputError) for item in found):
        raise found[0]
    return found


# a result-only call's zip holds tool-result.json alone
_FOLDER_FILES = tuple(FIXTURE_FILES.values())


def _holds_fixtures(folder: Path) -> bool:
    return any((folder / name).is_file() for name in _FOLDER_FILES)


def folder_case(
    folder: Path | InputError, contract_file: str | None, tool: str | None, status: int | None
) -> Case:
    """Read one fixture folder.

    A folder that cannot be read (or a root that holds none) is a Case with its error."""
    if isinstance(folder, InputError):
        return Case(str(folder.path), error=str(folder), error_file=None)
    try:
        call = _call_file(folder)
        status = call.get("status", status)
        own = folder / "contract.json"
        files = {
            name: str(folder / file)
            for name, file in FIXTURE_FILES.items()
            if (folder / file).is_file()
        }
        case = single_case(files, status, None, None, call.get("http"), call.get("result_is_error"))
        # the call's own contract, from the fixtures zip
        if own.is_file():
            case.contract_file, case.contract = str(own), read_contract(str(own), call.get("tool"))
        # the shared --contract: the call's tool picks from a file of several
        elif contract_file:
            case.contract_file, case.contract = (
                contract_file,
                read_contract(contract_file, tool or call.get("tool")),
            )
    except InputError as error:
        return Case(str(folder), error=str(error), error_file=error.path)
    case.name = str(folder)
    return case


def _call_file(folder: Path) -> dict:
    """Read the folder's call.json (tool and HTTP status of the call).

    When there is one."""
    path = folder / CALL_FILE
    if not path.is_file():
        return {}
    call = read_fixture(str(path), "arguments")
    status = call.get("status") if isinstance(call, dict) else None
    tool = call.get("tool") if isinstance(call, dict) else None
    http = call.get("http") if isinstance(call, dict) else None
    if (
        not isinstance(call, dict)
        or not (status is None or isinstance(status, int) and 100 <= status <= 599)
        or not (tool is None or isinstance(tool, str))
        or not _http_object(http)
    ):
        raise InputError(
            f'{path}: expected {{"tool": name or null, "status": 100-599 or null, '
            f'"http": {{"method", "url", "headers"}} or null}}',
            path,
        )
    return {key: value for key, value in call.items() if value is not None}


def _http_object(http) -> bool:
    """Tell whether a fixture's `http` is absent or a well-formed object.

    {"method", "url", "headers"} with text values."""
    if http is None:
        return True
    if not isinstance(http, dict) or set(http) - {"method", "url", "headers"}:
        return False
    headers = http.get("headers")
    return all(http.get(k) is None or isinstance(http[k], str) for k in ("method", "url")) and (
        headers is None
        or isinstance(headers, dict)
        and all(isinstance(v, str) for v in headers.values())
    )
