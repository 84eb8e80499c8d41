"""The package outside the checkout.

The wheel, the Dockerfile's build and command, the systemd unit.

No container runtime runs where these tests run, so the Dockerfile is checked by doing what it does:
its build stage's files make the wheel, its final stage's command runs from that wheel with its ENV.
"""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import httpx
import pytest
from conftest import ROOT, free_port
from helpers import parsed

from webapp.version import __version__

pytestmark = pytest.mark.slow
DOCKERFILE = (ROOT / "Dockerfile").read_text()
UNIT = ROOT / "docs" / "tracediff.service"


def stages(dockerfile: str) -> list[list[tuple[str, str]]]:
    """Split a Dockerfile into stages of (INSTRUCTION, arguments), continuation lines joined."""
    text = re.sub(r"\\\n", " ", dockerfile)
    result = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        instruction, _, arguments = line.partition(" ")
        if instruction.upper() == "FROM":
            result.append([])
        result[-1].append((instruction.upper(), arguments.strip()))
    return result


def clean_env(**extra) -> dict:
    """The environment of a fresh shell: no PYTHONPATH to the checkout, no TRACEDIFF_* settings."""
    env = {
        k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("TRACEDIFF_")
    }
    return {**env, **extra}


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """Build the wheel as the Dockerfile's build stage does and install it into a fresh
    virtualenv."""
    work = tmp_path_factory.mktemp("package")
    build, final = stages(DOCKERFILE)
    source = work / "src"
    source.mkdir()
    for instruction, arguments in build:
        if instruction == "COPY":
            *sources, _ = arguments.split()
            for name in sources:
                copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copy
                copy(
                    ROOT / name,
                    source / name,
                    **(
                        {"ignore": shutil.ignore_patterns("__pycache__")}
                        if (ROOT / name).is_dir()
                        else {}
                    ),
                )
    [wheel_command] = [shlex.split(a) for i, a in build if i == "RUN"]
    assert wheel_command[:2] == ["pip", "wheel"] and wheel_command[-1] == "."
    dist = work / "dist"
    command = [sys.executable, "-m", *wheel_command[:-1], source]
    built = subprocess.run(
        [
            str(part).replace("/dist", str(dist)) if part == "/dist" else str(part)
            for part in command
        ],
        cwd=source,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    [wheel] = dist.glob("tracediff-*.whl")
    venv = work / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--system-site-packages", venv], check=True, timeout=300
    )
    [install] = [shlex.split(a) for i, a in final if i == "RUN" and "pip install" in a]
    install = [
        str(venv / "bin" / "pip") if part == "pip" else part
        for part in install[: install.index("&&")]
    ]
    install = [part.replace("$(ls /dist/*.whl)", str(wheel)) for part in install]
    done = subprocess.run(
        [*install, "--no-index"],
        cwd=work,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return {
        "work": work,
        "wheel": wheel,
        "venv": venv,
        "bin": venv / "bin" / "tracediff",
        "final": final,
    }


def serve(installed, args, env, port) -> tuple[subprocess.Popen, Path]:
    """Start the installed tracediff outside the checkout; return it once /api/v1/health answers."""
    log = installed["work"] / f"serve-{port}.log"
    process = subprocess.Popen(
        [installed["bin"], *args],
        cwd=installed["work"],
        env=clean_env(**env),
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"tracediff exited: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/v1/health", timeout=1).status_code == 200:
                return process, log
        except httpx.HTTPError:
            time.sleep(0.2)
    stop(process)
    raise AssertionError(f"tracediff did not start: {log.read_text()[-2000:]}")


def stop(process) -> None:
    os.killpg(process.pid, 15)
    process.wait(30)


def test_the_wheel_carries_the_pages_the_samples_the_migrations_and_the_license(installed):
    names = set(zipfile.ZipFile(installed["wheel"]).namelist())
    for path in (
        "webapp/templates/base.html",
        "webapp/templates/partials/list.html",
        "webapp/static/app.js",
        "webapp/sample_traces/02-orders-limit-as-string.ndjson",
        "webapp/sample_traces/contracts/findOrders.json",
        "webapp/store/migrations/sqlite/0001_initial.sql",
        "webapp/web/openapi.yaml",
    ):
        assert path in names, path
    assert any(name.endswith("LICENSE") for name in names)
    for folder in ("templates", "static", "sample_traces", "docs"):
        shipped = {
            n.split(f"webapp/{folder}/", 1)[1] for n in names if n.startswith(f"webapp/{folder}/")
        }
        on_disk = {
            str(p.relative_to(ROOT / folder)) for p in (ROOT / folder).rglob("*") if p.is_file()
        }
        assert shipped == on_disk, folder


def test_the_pages_messages_name_ship_in_the_wheel_and_are_found_from_it(installed):
    named = {
        match
        for path in (ROOT / "webapp").rglob("*.py")
        for match in re.findall(r"docs/([a-z_]+\.md)", path.read_text(encoding="utf-8"))
    }
    assert "deploy.md" in named
    python = installed["venv"] / "bin" / "python"
    for page in sorted(named):
        where = subprocess.run(
            [python, "-c", f"import webapp; print(webapp.doc_page({page!r}))"],
            cwd=installed["work"],
            env=clean_env(),
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        assert where.startswith(str(installed["venv"])) and Path(where).read_text(
            encoding="utf-8"
        ), page


def test_the_wheel_works_from_a_fresh_virtualenv_outside_the_checkout(installed):
    python = installed["venv"] / "bin" / "python"
    where = subprocess.run(
        [python, "-c", "import webapp; print(webapp.__file__)"],
        cwd=installed["work"],
        env=clean_env(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert where.startswith(str(installed["venv"])) and not where.startswith(str(ROOT))
    version = subprocess.run(
        [installed["bin"], "--version"], env=clean_env(), capture_output=True, text=True
    )
    assert version.stdout.strip() == f"tracediff, version {__version__}"
    port = free_port()
    process, _ = serve(
        installed, ["serve", "--demo", "--port", str(port), "--db", "demo.db"], {}, port
    )
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
            index = http.get("/")
            assert index.status_code == 200 and "trace-rows" in index.text
            script = http.get("/static/app.js")
            assert (
                script.status_code == 200
                and script.content == (ROOT / "static" / "app.js").read_bytes()
            )
            first = json.loads(
                (ROOT / "sample_traces" / "02-orders-limit-as-string.ndjson")
                .read_text()
                .splitlines()[0]
            )
            page = http.get(f"/traces/{first['trace_id']}")
            assert (
                page.status_code == 200
                and "findOrders" in page.text
                and "type_changed" in page.text
            )
    finally:
        stop(process)


def test_the_dockerfile_command_runs_from_its_wheel_with_its_environment(installed):
    final = installed["final"]
    env = {}
    for instruction, arguments in final:
        if instruction == "ENV":
            env.update(dict(pair.split("=", 1) for pair in shlex.split(arguments)))
    [command] = [json.loads(a) for i, a in final if i == "CMD"]
    assert command[:2] == ["tracediff", "serve"] and "0.0.0.0" in command
    # one port everywhere: what the image exposes, what serve listens on, what the health check asks
    [exposed] = [a for i, a in final if i == "EXPOSE"]
    [healthcheck] = [a for i, a in final if i == "HEALTHCHECK"]
    probe = json.loads(healthcheck.split(" CMD ", 1)[1])
    assert exposed == env["TRACEDIFF_PORT"] == "8000" and "--port" not in command
    assert f"http://127.0.0.1:{exposed}/api/v1/health" in probe[-1]
    assert f"-p 127.0.0.1:{exposed}:{exposed}" in (ROOT / "docs" / "operations.md").read_text()
    # the VOLUME
    data = installed["work"] / "data"
    data.mkdir()
    assert [a for i, a in final if i == "VOLUME"] == [str(Path(env["TRACEDIFF_DATABASE"]).parent)]
    env["TRACEDIFF_DATABASE"] = str(data / Path(env["TRACEDIFF_DATABASE"]).name)
    refused = subprocess.run(
        [installed["bin"], *command[1:]],
        cwd=installed["work"],
        env=clean_env(**{**env, "TRACEDIFF_PORT": str(free_port())}),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (
        refused.returncode == 1
        and "refusing to listen on 0.0.0.0 with no token set" in refused.stderr
    )
    port = free_port()
    env.update(
        TRACEDIFF_PORT=str(port),
        TRACEDIFF_ADMIN_TOKENS="ops:adm-7d1c",
        TRACEDIFF_INGEST_TOKENS="ship:ing-2b9f",
    )
    process, log = serve(installed, command[1:], env, port)
    try:
        assert httpx.get(f"http://127.0.0.1:{port}/").status_code == 200
        assert (
            httpx.post(f"http://127.0.0.1:{port}/api/v1/ingest", content=b"{}").status_code == 401
        )
        checked = subprocess.run(
            [sys.executable, *probe[1:-1], probe[-1].replace(f":{exposed}/", f":{port}/")],
            env=clean_env(),
            capture_output=True,
            text=True,
            timeout=30,
        )
        # the HEALTHCHECK passes against the running server
        assert checked.returncode == 0, checked.stderr
    finally:
        stop(process)
    assert (data / "tracediff.db").exists()
    assert "TRACEDIFF_READ_TOKENS is not set" in log.read_text()


def test_the_systemd_unit_is_valid_and_runs_the_installed_command(installed, tmp_path):
    unit = tmp_path / "tracediff.service"
    text = UNIT.read_text()
    [exec_start] = re.findall(r"^ExecStart=(.+)$", text, re.M)
    unit.write_text(text.replace(exec_start.split()[0], str(installed["bin"])))
    if shutil.which("systemd-analyze"):
        verified = subprocess.run(
            ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True
        )
        assert verified.returncode == 0 and verified.stderr == "", verified.stderr
    sections = re.findall(r"^\[(\w+)\]$", text, re.M)
    assert sections == ["Unit", "Service", "Install"]
    usage = subprocess.run(
        [installed["bin"], *exec_start.split()[1:], "--help"],
        env=clean_env(),
        capture_output=True,
        text=True,
    )
    assert usage.returncode == 0 and "--allow-open" in usage.stdout
    assert "TRACEDIFF_DATABASE=/var/lib/tracediff/" in text and "StateDirectory=tracediff" in text


def test_the_compose_file_runs_the_image_on_postgresql_with_declared_settings():
    import yaml

    from webapp.config import SETTINGS

    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    declared = {f"TRACEDIFF_{setting.name}" for setting in SETTINGS}
    nodes = {
        name: service
        for name, service in compose["services"].items()
        if service.get("build") == "."
    }
    assert len(nodes) >= 2, "several app nodes on one database"
    db = compose["services"]["db"]["environment"]
    for service in nodes.values():
        assert set(service["environment"]) <= declared
        url = service["environment"]["TRACEDIFF_DATABASE"]
        assert (
            url.startswith("postgresql://")
            and f"{db['POSTGRES_USER']}:" in url
            and url.endswith(f"/{db['POSTGRES_DB']}")
        )
        # the Dockerfile's EXPOSE
        assert [port.split(":")[-1] for port in service["ports"]] == ["8000"]
        assert service["depends_on"]["db"]["condition"] == "service_healthy"
    # the image can open a postgresql:// URL
    assert '"$(ls /dist/*.whl)[postgres]"' in DOCKERFILE


def test_every_module_the_package_imports_comes_with_its_declared_dependencies():
    """The wheel's virtualenv sees this machine's packages, so a missing dependency shows only
    here."""
    import ast
    import sysconfig
    from importlib.metadata import packages_distributions, requires

    from packaging.requirements import Requirement

    def closure(name: str, extras: frozenset = frozenset(), seen: set | None = None) -> set:
        seen = set() if seen is None else seen
        key = name.lower().replace("_", "-")
        if key in seen:
            return seen
        seen.add(key)
        for line in requires(name) or []:
            requirement = Requirement(line)
            if requirement.marker is None or any(
                requirement.marker.evaluate({"extra": e}) for e in extras
            ):
                closure(requirement.name, frozenset(requirement.extras), seen)
        return seen

    base, with_postgres = closure("tracediff"), closure("tracediff", frozenset({"postgres"}))
    stdlib = set(sys.stdlib_module_names)
    owners = packages_distributions()
    for path in (ROOT / "webapp").rglob("*.py"):
        # the [postgres] extra's modules
        postgres_only = "postgresql" in path.parts
        for node in ast.walk(parsed(path)):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module]
                if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                else []
            )
            for top in {n.split(".")[0] for n in names} - stdlib - {"webapp"}:
                dists = {d.lower().replace("_", "-") for d in owners.get(top, [top])}
                assert dists & (with_postgres if postgres_only else base), (path.name, top, dists)
    # the interpreter's own modules were told apart by sys.stdlib_module_names
    assert sysconfig.get_paths()
