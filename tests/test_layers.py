"""The import graph runs one way: what each layer of webapp/ may import, read from the source."""

import ast
from pathlib import Path

import pytest

WEBAPP = Path(__file__).resolve().parent.parent / "webapp"


def imported_modules(path: Path) -> set[str]:
    """Every webapp module a file imports (relative imports resolved), at any depth of the file."""
    package = ".".join(path.relative_to(WEBAPP.parent).with_suffix("").parts[:-1])
    if path.name == "__init__.py":
        package = ".".join(path.relative_to(WEBAPP.parent).parts[:-1])
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            found |= {module} | {f"{module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return {name for name in found if name.split(".")[0] in ("webapp", "flask", "jsonschema")}


def layer_imports(folder: str) -> dict[str, set[str]]:
    return {str(path.relative_to(WEBAPP)): imported_modules(path) for path in (WEBAPP / folder).rglob("*.py")}


# What sits above the store: the web layer, the pipeline and loaders, ingestion and its settings.
ABOVE_THE_STORE = (
    "flask",
    "webapp.web.db",
    "webapp.web.api",
    "webapp.web.views",
    "webapp.cli",
    "webapp.pipeline",
    "webapp.pipeline.bulk",
    "webapp.ingest",
    "webapp.redaction.redactor",
    "webapp.config",
    "webapp.ops.analyser",
)


def test_the_store_imports_nothing_from_the_layers_above_it():
    for module, names in layer_imports("store").items():
        strays = {name for name in names if name.startswith(ABOVE_THE_STORE)}
        assert not strays, f"{module} imports {sorted(strays)}"


@pytest.mark.parametrize(
    "folder, allowed",
    [
        ("analysis", ("webapp.analysis", "jsonschema")),
        ("contracts", ("webapp.contracts", "webapp.analysis.pointers", "webapp.analysis.pyschema")),
    ],
)
def test_a_layer_imports_nothing_above_it(folder, allowed):
    for module, names in layer_imports(folder).items():
        strays = {name for name in names if not name.startswith(allowed)}
        assert not strays, f"{module} imports {sorted(strays)}"


def test_only_pyschema_imports_jsonschema_in_the_analysis():
    users = {
        module
        for module, names in layer_imports("analysis").items()
        if any(name.startswith("jsonschema") for name in names)
    }
    assert users == {"analysis/pyschema.py"}


def test_bulk_loads_folders_and_the_pipeline_does_not_import_it():
    assert not any(
        name.startswith("webapp.pipeline.bulk") for name in imported_modules(WEBAPP / "pipeline" / "__init__.py")
    )
    assert "webapp.pipeline" in imported_modules(WEBAPP / "pipeline" / "bulk.py")
