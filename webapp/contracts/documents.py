"""Read a document as JSON or YAML, with the limits an upload needs."""

from functools import cache
from pathlib import Path

from ..common import jsontext
from .errors import ContractError

YAML_SUFFIXES = (".yaml", ".yml")
YAML_MEDIA_TYPES = ("application/yaml", "text/yaml", "application/x-yaml", "text/x-yaml")
MAX_YAML_NODES = 1_000_000


@cache
def _yaml_loader():
    """PyYAML's safe loader, keeping dates and times as the strings written.

    JSON has no dates."""
    # here: only YAML documents need it
    import yaml

    class YamlLoader(yaml.SafeLoader):
        """A SafeLoader without timestamps."""

    YamlLoader.add_constructor("tag:yaml.org,2002:timestamp", yaml.SafeLoader.construct_scalar)
    return YamlLoader


def load_document(data: bytes, source: str, as_yaml: bool = False):
    """Parse a document.

    YAML when `as_yaml`, else JSON or, failing that, a YAML mapping."""
    if as_yaml:
        return _from_yaml(data, source)
    try:
        return jsontext.loads(data.removeprefix(jsontext.BOM))
    except jsontext.JSONDecodeError as error:
        json_error = error
    try:
        document = _from_yaml(data, source)
    except ContractError:
        document = None
    if isinstance(document, dict):
        return document
    raise ContractError(f"{source} is not JSON (nor a YAML mapping): {json_error}", "not_json", 422)


def load_file(path) -> object:
    """Read a JSON file, or a YAML one when its name ends .yaml or .yml."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ContractError(
            f"{path}: cannot read: {error.strerror or error}", "unreadable"
        ) from error
    if path.suffix.lower() in YAML_SUFFIXES:
        return _from_yaml(data, str(path))
    try:
        return jsontext.loads(data.removeprefix(jsontext.BOM))
    except jsontext.JSONDecodeError as error:
        raise ContractError(f"{path}: not JSON: {error}", "not_json", 422) from error


def _from_yaml(data: bytes, source: str):
    import yaml

    try:
        document = yaml.load(data, Loader=_yaml_loader())  # noqa: S506 - a subclass of SafeLoader
    except (yaml.YAMLError, RecursionError, ValueError) as error:
        raise ContractError(
            f"{source}: not YAML: {_yaml_problem(error)}", "not_yaml", 422
        ) from None
    if _too_many_nodes(document):
        raise ContractError(
            f"{source}: YAML document too large once its aliases are expanded (more than "
            f"{MAX_YAML_NODES:,} values)",
            "too_large",
            413,
        )
    # keys such as 200 become "200", as in JSON
    try:
        return jsontext.loads(jsontext.dumps(document, option=jsontext.OPT_NON_STR_KEYS))
    except (TypeError, jsontext.JSONDecodeError) as error:
        raise ContractError(
            f"{source}: YAML value without a JSON form: {error}", "not_yaml", 422
        ) from None


def _yaml_problem(error) -> str:
    mark = getattr(error, "problem_mark", None)
    if getattr(error, "problem", None) and mark is not None:
        return f"{error.problem} at line {mark.line + 1} column {mark.column + 1}"
    return " ".join(str(error).split())


def _too_many_nodes(document) -> bool:
    """Count values as JSON would write them (aliases expanded), stopping at the cap."""
    stack, count = [document], 0
    while stack:
        node = stack.pop()
        count += 1
        if count > MAX_YAML_NODES:
            return True
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False
