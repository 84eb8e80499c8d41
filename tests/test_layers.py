"""The import graph runs one way.

What each layer of webapp/ may import, read from the source with `ast`.

Every import counts, at any depth of a file (a function-level import climbs as surely as one at the
top), and relative imports are resolved to the module they name."""

import ast
import functools
from pathlib import Path

import pytest
from helpers import parsed

WEBAPP = Path(__file__).resolve().parent.parent / "webapp"

DOMAIN = (
    "analysis",
    "inference",
    "contracts",
    "problems",
    "alerts",
    "ingest",
    "redaction",
    "reports",
    "observed",
    "common",
)
LAYERS = ("web", "cli", "mcp", "ops", "pipeline", "store")
# The store may use the shared helpers (common/: times, resources) but decides nothing: no domain
# package.
STORE_DOMAIN = tuple(name for name in DOMAIN if name != "common")
# mcp/ is an adapter beside web/ and cli/ (the MCP server): it reads the API, and only the command
# line and the app factory import it; the MCP SDK (`mcp`, outside webapp/) counts as its room, so no
# other layer imports that either.
FORBIDDEN = {
    **{
        room: ("store", "web", "cli", "ops", "pipeline", "mcp", "flask", "click") for room in DOMAIN
    },
    "store": ("pipeline", "web", "cli", "ops", "mcp", *STORE_DOMAIN),
    "pipeline": ("web", "cli", "ops", "mcp"),
    "web": ("cli", "mcp"),
    "mcp": ("web", "cli", "ops"),
}
# packages from outside webapp/ that the rules above name
OUTSIDE = ("flask", "click", "mcp")
# where query strings (and the CLI's options) are read
QUERY_PARSERS = ("web/filters.py", "web/problem_filters.py")


def module_name(path: Path) -> str:
    """Return a file's dotted module name ("webapp.store.problems"; a package's __init__ is the
    package)."""
    parts = path.relative_to(WEBAPP.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path) -> set[str]:
    """Every module a file imports, relative imports resolved, with each name `from` imports as a
    module too."""
    here = module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    found = set()
    for node in ast.walk(parsed(path)):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            found |= {module} | {f"{module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found


def room_of(module: str) -> str | None:
    """Return the layer a module sits in: webapp's first-level folder or module, or an outside
    package's name."""
    parts = module.split(".")
    if parts[0] == "webapp":
        return parts[1] if len(parts) > 1 else ""
    return parts[0] if parts[0] in OUTSIDE else None


def files() -> list[Path]:
    return sorted(WEBAPP.rglob("*.py"))


def climbs(path: Path) -> set[str]:
    """Return what a file imports that its layer may not."""
    room = room_of(module_name(path))
    banned = FORBIDDEN.get(room, ())
    return {name for name in imported(path) if room_of(name) in banned and room_of(name) != room}


def test_every_layer_imports_only_what_lies_below_it():
    strays = {
        str(path.relative_to(WEBAPP)): sorted(found) for path in files() if (found := climbs(path))
    }
    assert not strays, "imports that climb:\n" + "\n".join(
        f"  {module}: {names}" for module, names in strays.items()
    )


def test_every_folder_of_webapp_is_a_known_layer():
    """A new package says which layer it is (here), so the rules above hold for it too."""
    folders = {path.name for path in WEBAPP.iterdir() if (path / "__init__.py").exists()}
    assert folders <= {*DOMAIN, *LAYERS}, (
        f"{sorted(folders - {*DOMAIN, *LAYERS})}: add them to DOMAIN or LAYERS"
    )


def test_only_the_command_line_imports_the_app_factory():
    users = {
        str(path.relative_to(WEBAPP))
        for path in files()
        if "webapp.create_app" in imported(path) and room_of(module_name(path)) != "cli"
    }
    assert not users, f"{sorted(users)} import create_app (only webapp/cli/ may)"


@pytest.mark.parametrize(
    "source, rule",
    [
        ("from ..store import Store", "problems"),
        ("def f():\n    from ..web.db import get_store", "problems"),
        ("import flask", "alerts"),
        ("from ..problems.states import reopens", "store"),
        ("from ..alerts import storms", "store"),
        ("from ..web.pages.traces import strip_window", "pipeline"),
        ("from ..cli.common import DB_OPTION", "web"),
        ("from ..mcp.tools import call", "web"),
        ("from mcp.server.lowlevel import Server", "pipeline"),
        ("from ..web.security import keyring", "mcp"),
    ],
)
def test_the_check_sees_a_climb(tmp_path, monkeypatch, source, rule):
    """The check itself: a climbing import, at the top or inside a function, is found."""
    folder = tmp_path / "webapp" / rule
    folder.mkdir(parents=True)
    (folder / "probe.py").write_text(source + "\n")
    monkeypatch.setattr(f"{__name__}.WEBAPP", tmp_path / "webapp")
    assert climbs(folder / "probe.py")


# Inside web/: pages/ and api/ route, render/ builds what pages show. render/ imports no blueprint,
# and the API, which the pages' JSON twins build on, imports no page.
WEB_FORBIDDEN = {"render": ("pages", "api"), "api": ("pages",)}


def web_room(module: str) -> str | None:
    """Return the folder of webapp/web/ a module sits in (pages, api, render), or None."""
    parts = module.split(".")
    return parts[2] if parts[:2] == ["webapp", "web"] and len(parts) > 2 else None


def web_climbs(path: Path) -> set[str]:
    """Return what a file of webapp/web/ imports that its folder may not."""
    banned = WEB_FORBIDDEN.get(web_room(module_name(path)), ())
    return {name for name in imported(path) if web_room(name) in banned}


def test_render_imports_no_blueprint_and_the_api_no_page():
    web = [path for path in files() if web_room(module_name(path))]
    strays = {
        str(path.relative_to(WEBAPP)): sorted(found) for path in web if (found := web_climbs(path))
    }
    assert not strays, "imports that climb inside web/:\n" + "\n".join(
        f"  {m}: {n}" for m, n in strays.items()
    )


@pytest.mark.parametrize(
    "source, folder",
    [
        ("from ..pages.traces import strip_window", "render"),
        ("def f():\n    from ..api import traces", "render"),
        ("from ..pages import problems", "api"),
    ],
)
def test_the_check_sees_a_climb_inside_web(tmp_path, monkeypatch, source, folder):
    place = tmp_path / "webapp" / "web" / folder
    place.mkdir(parents=True)
    (place / "probe.py").write_text(source + "\n")
    monkeypatch.setattr(f"{__name__}.WEBAPP", tmp_path / "webapp")
    assert web_climbs(place / "probe.py")


def defined(path: Path) -> set[str]:
    """The public names a module defines at its top level: functions, classes and constants."""
    names = set()
    for node in parsed(path).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {target.id for target in targets if isinstance(target, ast.Name)}
    return {name for name in names if not name.startswith("_")}


def parsers_in_the_store(webapp: Path) -> dict[str, list[str]]:
    """Return the store modules that define a name of the web layer's query parsers, with those
    names."""
    parsing = set().union(*(defined(WEBAPP / path) for path in QUERY_PARSERS))
    found = {
        path.relative_to(webapp): defined(path) & parsing
        for path in sorted((webapp / "store").rglob("*.py"))
    }
    return {str(module): sorted(names) for module, names in found.items() if names}


def test_the_store_runs_plain_filters_and_parses_no_query_string():
    """Times as people write them (2h, a day), the lists' choices and limits, cursors and the
    refusals of bad values are read in the web layer; the store is handed stored times and
    numbers."""
    assert not parsers_in_the_store(WEBAPP), parsers_in_the_store(WEBAPP)


def test_the_check_sees_a_query_parser_in_the_store(tmp_path):
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "probe.py").write_text(
        "RELATIVE = None\n\n\ndef absolute_time(text):\n    return text\n"
    )
    assert parsers_in_the_store(tmp_path) == {"store/probe.py": ["RELATIVE", "absolute_time"]}


def test_only_pyschema_imports_jsonschema_in_the_analysis():
    users = {
        str(path.relative_to(WEBAPP))
        for path in (WEBAPP / "analysis").rglob("*.py")
        if any(name.split(".")[0] == "jsonschema" for name in imported(path))
    }
    assert users == {"analysis/schemas/pyschema.py"}


def past_the_face(path: Path, package: str = "analysis") -> set[str]:
    """Return what a file outside a package imports from inside it, past its face.

    The face is the package's __init__ and the names its `__all__` lists."""
    face = f"webapp.{package}"
    if module_name(path) == face or module_name(path).startswith(face + "."):
        return set()
    names = {name for name in imported(path) if name.startswith(face + ".")}
    # imported() counts `from webapp.analysis import analyze_call` as webapp.analysis.analyze_call
    # too
    exported = {f"{face}.{name}" for name in _all_of(WEBAPP / package / "__init__.py")}
    return names - exported


def _all_of(path: Path) -> list[str]:
    """Return the names a module lists in `__all__`."""
    for node in parsed(path).body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if any(getattr(target, "id", None) == "__all__" for target in targets):
            return ast.literal_eval(node.value)
    return []


def test_outside_the_analysis_only_its_face_is_imported():
    """webapp/ and bench/ import the analysis from `webapp.analysis` alone, not from its modules."""
    sources = [*files(), *sorted((WEBAPP.parent / "bench").rglob("*.py"))]
    strays = {
        str(path.relative_to(WEBAPP.parent)): sorted(found)
        for path in sources
        if (found := past_the_face(path))
    }
    listed = "\n".join(f"  {module}: {names}" for module, names in strays.items())
    assert not strays, (
        f"imports past webapp.analysis' face (add the name to its __all__):\n{listed}"
    )


@pytest.mark.parametrize(
    "source",
    [
        "from ..analysis.wire.locations import external",
        "from ..analysis import rules",
        "def f():\n    from webapp.analysis.findings.kinds import worst",
        "import webapp.analysis.engine",
    ],
)
def test_the_check_sees_an_import_past_the_face(tmp_path, monkeypatch, source):
    """The check itself: a module, a subpackage or a name the face does not list is found."""
    (tmp_path / "webapp" / "problems").mkdir(parents=True)
    (tmp_path / "webapp" / "analysis").mkdir()
    (tmp_path / "webapp" / "analysis" / "__init__.py").write_text('__all__ = ["analyze_call"]\n')
    (tmp_path / "webapp" / "problems" / "probe.py").write_text(source + "\n")
    monkeypatch.setattr(f"{__name__}.WEBAPP", tmp_path / "webapp")
    assert past_the_face(tmp_path / "webapp" / "problems" / "probe.py")


def test_the_check_lets_the_face_and_the_package_itself_through(tmp_path, monkeypatch):
    (tmp_path / "webapp" / "analysis").mkdir(parents=True)
    (tmp_path / "webapp" / "analysis" / "__init__.py").write_text('__all__ = ["analyze_call"]\n')
    engine, probe = (
        tmp_path / "webapp" / "analysis" / "engine.py",
        tmp_path / "webapp" / "pipeline" / "probe.py",
    )
    engine.write_text("from .rules.mapping import pair_arguments\n")
    probe.parent.mkdir()
    probe.write_text("from ..analysis import analyze_call\n")
    monkeypatch.setattr(f"{__name__}.WEBAPP", tmp_path / "webapp")
    assert not past_the_face(engine)
    assert not past_the_face(probe)


def test_bulk_loads_folders_and_the_pipeline_does_not_import_it():
    assert not any(
        name.startswith("webapp.pipeline.bulk")
        for name in imported(WEBAPP / "pipeline" / "__init__.py")
    )
    assert "webapp.pipeline" in imported(WEBAPP / "pipeline" / "bulk.py")


# -- store access in the domain --------------------------------------------------------------------

# what a function handed the store (or its connection) calls it
STORE_PARAMETERS = ("store", "db", "conn", "connection")
# Method names of the store that other objects the domain uses share (io's write, jsonschema's
# check_schema): a call of one proves nothing
SHARED_METHOD_NAMES = ("write", "close", "open", "check_schema")


@functools.cache
def store_methods() -> frozenset[str]:
    """The public method names of both store engines but those the domain or libraries share too."""
    from webapp.store.postgresql import PostgresStore
    from webapp.store.sqlite import SqliteStore

    names = {
        name
        for engine in (SqliteStore, PostgresStore)
        for name in dir(engine)
        if not name.startswith("_") and callable(getattr(engine, name))
    }
    own = {
        node.name
        for room in DOMAIN
        for path in (WEBAPP / room).rglob("*.py")
        for node in ast.walk(parsed(path))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    return frozenset(names - own - set(SHARED_METHOD_NAMES))


def store_access(path: Path, methods: set[str]) -> list[str]:
    """Return how a module's functions take or use the store.

    A parameter named or annotated as the store, or a call of a store method on any object (a
    renamed parameter still calls `get_tool`)."""
    found = []
    for node in ast.walk(parsed(path)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            arguments = node.args
            for argument in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]:
                annotation = ast.unparse(argument.annotation) if argument.annotation else ""
                if argument.arg in STORE_PARAMETERS or "Store" in annotation:
                    found.append(f"line {node.lineno}: parameter {argument.arg}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in methods:
                found.append(f"line {node.lineno}: .{node.func.attr}()")
    return found


def test_no_domain_function_takes_or_calls_the_store():
    """The domain packages are pure: the pipeline reads the store and hands them values."""
    methods = store_methods()
    strays = {
        str(path.relative_to(WEBAPP)): found
        for room in DOMAIN
        for path in sorted((WEBAPP / room).rglob("*.py"))
        if (found := store_access(path, methods))
    }
    listed = "\n".join(f"  {module}: {found}" for module, found in strays.items())
    assert not strays, f"domain code that takes the store:\n{listed}"


@pytest.mark.parametrize(
    "source",
    [
        "def strip(store, number):\n    return number\n",
        "def save(db, contract):\n    return contract\n",
        "def save(target: 'Store', contract):\n    return contract\n",
        "def save(target: Store | None):\n    return target\n",
        "def save(target, name):\n    return target.get_tool(name)\n",
        "def counts(source, numbers):\n    return source.problems_hourly(numbers, '', '')\n",
    ],
)
def test_the_check_sees_a_domain_function_taking_the_store(tmp_path, source):
    (tmp_path / "probe.py").write_text(source)
    assert store_access(tmp_path / "probe.py", store_methods())


def test_the_store_methods_the_check_knows_are_the_store_s():
    methods = store_methods()
    expected = {"get_tool", "put_tool", "problems_hourly", "problems_counts", "add_events"}
    assert expected <= methods
    assert len(methods) > 80
