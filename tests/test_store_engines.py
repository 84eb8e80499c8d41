"""Both store engines provide what the shared store code asks of them.

Read with `ast`.

The shared code (webapp/store/*.py) runs an engine's statement by name: `self.sql.NAME`,
`store.listing.NAME`, `sql.NAME` in a helper handed the engine's module, or a NAME string looked up
with `getattr(self.sql, ...)`. Each engine's `sql.py` and `listing.py` define the same names but
for the few its own code alone runs (ONLY_HERE); the engine hooks are the abstract methods of
store/engine.py, and no engine overrides a method with an empty body.
"""

import ast
import re
from pathlib import Path

import pytest
from helpers import parsed

STORE = Path(__file__).resolve().parent.parent / "webapp" / "store"
ENGINES = ("sqlite", "postgresql")
# the attributes of a Store that hold an engine's statements
MODULES = ("sql", "listing")
STATEMENT_NAME = re.compile(r"[A-Z][A-Z0-9_]+")


def shared_files(store: Path) -> list[Path]:
    """The shared store modules: the package's own files, not its engines' or migrations'."""
    return sorted(store.glob("*.py"))


def asked_for(files: list[Path]) -> dict[str, set[str]]:
    """Return {"sql": names, "listing": names} the given modules ask an engine for."""
    asked: dict[str, set[str]] = {module: set() for module in MODULES}
    for path in files:
        tree = parsed(path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                module = _engine_module(node.value)
                if module and (
                    module != "sql" or STATEMENT_NAME.fullmatch(node.attr) or _via_store(node.value)
                ):
                    asked[module].add(node.attr)
            elif _getattr_on_sql(node):
                # a name looked up at run time: every NAME-shaped string of the module may be one
                asked["sql"] |= {
                    text.value
                    for text in ast.walk(tree)
                    if isinstance(text, ast.Constant)
                    and isinstance(text.value, str)
                    and STATEMENT_NAME.fullmatch(text.value)
                }
    return asked


def _engine_module(node: ast.AST) -> str | None:
    """Say which engine module an expression is: `x.sql`, `x.listing`, or a parameter `sql`."""
    if isinstance(node, ast.Attribute) and node.attr in MODULES:
        return node.attr
    if isinstance(node, ast.Name) and node.id == "sql":
        return "sql"
    return None


def _via_store(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute)


def _getattr_on_sql(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "getattr"
        and bool(node.args)
        and _engine_module(node.args[0]) == "sql"
    )


def defined(path: Path) -> set[str]:
    """The public names a module defines itself (functions, classes, assignments; no imports)."""
    names = set()
    for node in parsed(path).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {target.id for target in node.targets if isinstance(target, ast.Name)}
    return {name for name in names if not name.startswith("_")} - {"ONLY_HERE"}


def only_here(path: Path) -> set[str]:
    """The names a module declares its engine's own (its ONLY_HERE tuple)."""
    for node in parsed(path).body:
        if isinstance(node, ast.Assign) and any(
            getattr(t, "id", "") == "ONLY_HERE" for t in node.targets
        ):
            return set(ast.literal_eval(node.value))
    return set()


def missing(store: Path) -> dict[str, list[str]]:
    """Return {engine module: names the shared code asks for that it does not define}."""
    asked = asked_for(shared_files(store))
    gaps = {}
    for engine in ENGINES:
        for module in MODULES:
            lacking = asked[module] - defined(store / engine / f"{module}.py")
            if lacking:
                gaps[f"{engine}/{module}.py"] = sorted(lacking)
    return gaps


def unmatched(store: Path, module: str) -> dict[str, list[str]]:
    """Return {engine: names it defines that the other lacks and it does not declare its own}."""
    names = {engine: defined(store / engine / f"{module}.py") for engine in ENGINES}
    found = {}
    for engine in ENGINES:
        other = names[next(e for e in ENGINES if e != engine)]
        extra = names[engine] - other - only_here(store / engine / f"{module}.py")
        if extra:
            found[engine] = sorted(extra)
    return found


def test_the_shared_code_asks_for_statements_by_name():
    """The scan sees the ways the shared code asks (else the checks below would pass on nothing)."""
    asked = asked_for(shared_files(STORE))
    assert {
        "PROJECT_CALLS",
        "KEYED_CALLS",
        "HOUR_KEYS",
        "SPAN_EVENTS",
        "REBUILD_PAIRS",
        "DELETE_TRACE",
    } <= asked["sql"]
    assert {"trace_list_sql", "count_sql", "SEARCH_CAPPED", "fts_phrase"} <= asked["listing"]


def test_every_statement_the_shared_code_asks_for_is_in_both_engines():
    assert not missing(STORE), missing(STORE)


@pytest.mark.parametrize("module", MODULES)
def test_both_engines_name_the_same_statements(module):
    assert not unmatched(STORE, module), (
        f"{unmatched(STORE, module)}: add the other engine's form, or ONLY_HERE"
    )


@pytest.mark.parametrize("folder", ENGINES)
@pytest.mark.parametrize("module", MODULES)
def test_what_an_engine_keeps_to_itself_it_defines_and_the_shared_code_never_asks_for(
    folder, module
):
    own = only_here(STORE / folder / f"{module}.py")
    assert own <= defined(STORE / folder / f"{module}.py")
    assert not own & asked_for(shared_files(STORE))[module]


def _fake_store(tmp_path: Path, shared: str, sqlite_sql: str, postgresql_sql: str) -> Path:
    store = tmp_path / "store"
    for engine, text in (("sqlite", sqlite_sql), ("postgresql", postgresql_sql)):
        (store / engine).mkdir(parents=True)
        (store / engine / "sql.py").write_text(text)
        (store / engine / "listing.py").write_text(
            "def trace_list_sql(query, cursor):\n    return '', []\n"
        )
    (store / "reads.py").write_text(shared)
    return store


@pytest.mark.parametrize(
    "shared",
    [
        "def f(self, conn):\n    conn.execute(self.sql.NEW_ONE)\n",
        "def f(conn, sql):\n    conn.execute(sql.NEW_ONE)\n",
        "NAMES = ('NEW_ONE',)\n\ndef f(self):\n    return [getattr(self.sql, n) for n in NAMES]\n",
    ],
)
def test_the_check_sees_a_statement_one_engine_lacks(tmp_path, shared):
    store = _fake_store(tmp_path, shared, "NEW_ONE = 'SELECT 1'\n", "OTHER = 'SELECT 2'\n")
    assert missing(store) == {"postgresql/sql.py": ["NEW_ONE"]}


def test_the_check_sees_a_statement_only_one_engine_has(tmp_path):
    store = _fake_store(tmp_path, "", "A = 'SELECT 1'\nB = 'SELECT 2'\n", "A = 'SELECT 1'\n")
    assert unmatched(store, "sql") == {"sqlite": ["B"]}
    (store / "sqlite" / "sql.py").write_text("ONLY_HERE = ('B',)\nA = 'SELECT 1'\nB = 'SELECT 2'\n")
    assert unmatched(store, "sql") == {}


# -- the engine hooks ----------------------------------------------------------


def engine_classes():
    from webapp.store import Engine
    from webapp.store.postgresql import PostgresStore
    from webapp.store.sqlite import SqliteStore

    return Engine, (SqliteStore, PostgresStore)


def test_both_engines_implement_every_hook():
    interface, engines = engine_classes()
    hooks = set(interface.__abstractmethods__)
    assert len(hooks) >= 15, sorted(hooks)
    for engine in engines:
        assert not engine.__abstractmethods__, (
            f"{engine.__name__} lacks {sorted(engine.__abstractmethods__)}"
        )
        assert {"engine", "sql", "listing", "sole_server"} <= set(vars(engine)), engine.__name__


def empty_methods(folder: Path) -> list[str]:
    """Return the methods of a folder's classes that do nothing: pass, `...`, return a constant."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.ClassDef):
                found += [
                    f"{path.name}: {node.name}.{method.name}"
                    for method in node.body
                    if isinstance(method, ast.FunctionDef) and _does_nothing(method)
                ]
    return found


def _does_nothing(method: ast.FunctionDef) -> bool:
    body = [
        statement
        for statement in method.body
        if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant))
    ]
    return all(
        isinstance(statement, ast.Pass)
        or (
            isinstance(statement, ast.Return)
            and (statement.value is None or isinstance(statement.value, ast.Constant))
        )
        for statement in body
    )


@pytest.mark.parametrize("folder", ENGINES)
def test_no_engine_overrides_a_method_with_an_empty_body(folder):
    """What one engine does not need is a no-op in the shared Store saying why, or a capability."""
    assert not empty_methods(STORE / folder)


def test_the_check_sees_an_empty_override(tmp_path):
    (tmp_path / "engine.py").write_text(
        "class PostgresStore:\n"
        "    def keep_headroom(self):\n        '''The server watches its disk.'''\n\n"
        "    def release_claims(self):\n        return 0\n\n"
        "    def behind(self):\n        return self.db.behind()\n"
    )
    assert empty_methods(tmp_path) == [
        "engine.py: PostgresStore.keep_headroom",
        "engine.py: PostgresStore.release_claims",
    ]


def test_a_store_opens_the_engine_its_address_names(db_path, engine):
    """`Store(path or URL)` and `Store.open` open the engine a DATABASE setting names."""
    from webapp.store import Store

    for opened in (Store(db_path), Store.open(db_path, create=False)):
        try:
            assert isinstance(opened, Store) and opened.engine == engine
            assert (
                type(opened).__name__
                == {"sqlite": "SqliteStore", "postgresql": "PostgresStore"}[engine]
            )
        finally:
            opened.close()
