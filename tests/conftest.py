"""Fixtures: the real app on a real SQLite file, and a real server process.

A real `tracediff serve` process."""

import gc
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import flask
import httpx
import jinja2
import pytest
from browsers import browser, page, screenshot  # noqa: F401 (the browser tests' fixtures)
from databases import BuiltDatabases, PostgresDatabases, engines
from hypothesis import HealthCheck, settings

from webapp import create_app
from webapp.store import Store

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_traces"


def _route_builders_compiled_once() -> None:
    """Let every test's app reuse the URL builders werkzeug compiled for the first one.

    Werkzeug compiles two builder functions per route with `ast` and `compile()` whenever an app is
    made (~0.25 s for our ~70 routes, paid by each of the ~2,000 tests that make one); a builder is
    a pure function of the rule's text, parts and defaults, so one compiled for an earlier app is
    the same code. Without the method this looks for (another werkzeug), apps compile as before."""
    from werkzeug.routing import Rule

    compile_builder = getattr(Rule, "_compile_builder", None)
    if compile_builder is None:
        return
    compiled = {}

    def once(rule, append_unknown=True):
        defaults = sorted((rule.defaults or {}).items(), key=repr)
        key = (rule.rule, tuple(rule._trace), repr(defaults), append_unknown)
        if key not in compiled:
            compiled[key] = compile_builder(rule, append_unknown)
        return compiled[key]

    Rule._compile_builder = once


_route_builders_compiled_once()


class CompiledTemplates(jinja2.BytecodeCache):
    """Jinja's compiled templates kept in memory for every app of the test process.

    Each test's app has its own Jinja environment, which compiles every template it renders again
    (~40 for the trace list, the largest share of a page test's time). A compiled template is a
    pure function of its source and of the environment's options (delimiters, extensions,
    finalize, filters folded at compile time): the key holds all of them, and Jinja itself checks
    the source's checksum, so an app configured otherwise compiles its own."""

    def __init__(self):
        self.code = {}

    def get_bucket(self, environment, name, filename, source):
        """Key the template by its name, file and the options that shape its compiled code."""
        return super().get_bucket(
            environment, repr((name, filename, _options(environment))), None, source
        )

    def get_cache_key(self, name, filename=None):
        return name

    def load_bytecode(self, bucket):
        bucket.code = self.code.get((bucket.key, bucket.checksum))

    def dump_bytecode(self, bucket):
        self.code[(bucket.key, bucket.checksum)] = bucket.code


def _options(environment) -> tuple:
    """Name everything of an environment that changes the code a template compiles to."""

    def named(value):
        return getattr(value, "__module__", None), getattr(value, "__qualname__", repr(value))

    delimiters = (
        environment.block_start_string,
        environment.variable_start_string,
        environment.comment_start_string,
        environment.line_statement_prefix,
        environment.line_comment_prefix,
        environment.trim_blocks,
        environment.lstrip_blocks,
        environment.newline_sequence,
        environment.keep_trailing_newline,
    )
    return (
        delimiters,
        environment.optimized,
        environment.is_async,
        named(environment.finalize),
        named(environment.autoescape),
        tuple(sorted(environment.extensions)),
        tuple(sorted((name, named(f)) for name, f in environment.filters.items())),
        tuple(sorted((name, named(f)) for name, f in environment.tests.items())),
    )


def _templates_compiled_once() -> None:
    """Give every app's Jinja environment the process's CompiledTemplates."""
    compiled = CompiledTemplates()
    create = flask.Flask.create_jinja_environment

    def with_compiled(app):
        environment = create(app)
        environment.bytecode_cache = compiled
        return environment

    flask.Flask.create_jinja_environment = with_compiled


_templates_compiled_once()

# Property tests check what the engine finds, not how fast: speed is measured in bench/. On a loaded
# machine Hypothesis' per-example deadline and its slow-generation check fail tests that are right.
settings.register_profile("tracediff", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("tracediff")


# The quick inner loop (`-m "not slow and not browser"`) starts no process: a test that starts one
# (a server, a browser, a CLI run, a shipper) must say so with a mark, and this guard fails it when
# it does not. Python's audit hook sees every process start, in the test or in any fixture it uses.
PROCESS_EVENTS = {
    "subprocess.Popen",
    "os.system",
    "os.posix_spawn",
    "os.exec",
    "os.fork",
    "os.forkpty",
}
_started: list[str] = []


def _audit_process_starts(event, args):
    if event in PROCESS_EVENTS:
        # os.fork's event has no arguments
        what = args[1] if event == "subprocess.Popen" else args[0] if args else ""
        _started.append(f"{event} {what!r}"[:200])


sys.addaudithook(_audit_process_starts)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    # before any fixture of the test is set up, session-scoped ones included
    _started.clear()


@pytest.fixture(autouse=True)
def processes_need_a_mark(request):
    """Fail a test that starts a process unless it is marked slow or browser (see
    PROCESS_EVENTS)."""
    yield
    marked = request.node.get_closest_marker("slow") or request.node.get_closest_marker("browser")
    if _started and not marked:
        pytest.fail(
            f"started a process without a slow or browser mark: {_started[0]}", pytrace=False
        )


# Where the tests' files go when nothing else is asked: RAM (tmpfs). Each commit of a SQLite store
# syncs its file (synchronous=FULL), 3 ms and more a commit on the shared machine's disk where tmpfs
# takes microseconds; the files, the SQL and the code under test stay the same.
MEMORY_DISK = Path("/dev/shm")
MEMORY_DISK_ROOM = 4 * 1024**3


def _tmp_paths_in_memory(config) -> None:
    """Root tmp_path in MEMORY_DISK (pytest's numbered folders, kept and cleaned as usual) unless
    --basetemp or PYTEST_DEBUG_TEMPROOT says where, or there is no such disk with room."""
    if config.option.basetemp or os.environ.get("PYTEST_DEBUG_TEMPROOT"):
        return
    if not MEMORY_DISK.is_dir() or not os.access(MEMORY_DISK, os.W_OK):
        return
    if shutil.disk_usage(MEMORY_DISK).free < MEMORY_DISK_ROOM:
        return
    # read by pytest's tmp_path_factory, and inherited by xdist's workers
    os.environ["PYTEST_DEBUG_TEMPROOT"] = str(MEMORY_DISK)


def pytest_configure(config):
    _tmp_paths_in_memory(config)


def pytest_collection_finish(session):
    """Leave the objects made by imports and collection out of the garbage collector's full passes:
    they live as long as the process, and each full pass walked all of them again (~10% of a
    worker's CPU)."""
    gc.collect()
    gc.freeze()


def pytest_addoption(parser):
    parser.addoption(
        "--screenshots",
        action="store_true",
        help="let the browser tests write docs/screenshots/*.png (tracked files: only when asked)",
    )


def pytest_generate_tests(metafunc):
    """Run every test that takes `db_path` on each store engine available (see
    tests/databases.py)."""
    if "engine" in metafunc.fixturenames:
        metafunc.parametrize(
            "engine", engines(bool(metafunc.definition.get_closest_marker("sqlite_only")))
        )


@pytest.fixture(scope="session")
def postgres_databases():
    databases = PostgresDatabases()
    yield databases
    databases.close()


@pytest.fixture(autouse=True)
def app_loggers_as_found():
    """`serve` run in-process configures the app's loggers for a terminal; later tests read them
    through caplog."""
    logger = logging.getLogger("webapp")
    found = (logger.level, logger.propagate, list(logger.handlers))
    yield
    logger.setLevel(found[0])
    logger.propagate = found[1]
    logger.handlers[:] = found[2]


def _load_samples(store) -> None:
    from webapp.cli import demo

    demo.load_folder(store, SAMPLES, None)


def _bulk_traces(store) -> None:
    from test_store_listing import bulk_traces

    from webapp.store import stats

    bulk_traces(store, stats.COUNT_CAP + 1, word="everywhere")


# Databases many tests start from, named by the fixture a test asks for. Each is built once per test
# process, on first use (loading takes a second or more, on PostgreSQL several), and copied into the
# test's own database before the app or the store opens it (a copy takes milliseconds).
def _crowd(store) -> None:
    from crowds import build_crowd

    build_crowd(store)


BUILT = {"samples": _load_samples, "big": _bulk_traces, "crowd": _crowd}


# Fixtures that open the test's database before the test runs: a test using one of them starts from
# a copy of an empty migrated file (milliseconds) instead of migrating a new one (~0.2 s).
OPENED_FIRST = ("app", "client", "store", "alerting_app")


@pytest.fixture(scope="session")
def built_databases(tmp_path_factory) -> BuiltDatabases:
    return BuiltDatabases(tmp_path_factory.mktemp("built"), {**BUILT, "empty": lambda store: None})


@pytest.fixture(scope="session")
def sample_file(built_databases) -> Path:
    """sample_traces/ loaded as `serve --demo` loads them (in their own time), once per test process
    (read it, or copy it to change it)."""
    return built_databases.file("samples")


@pytest.fixture
def db_path(engine, tmp_path, request):
    """The test's database: a SQLite file path, or the URL of a fresh PostgreSQL database. A test
    that asks for one of BUILT (`samples`, `big`) finds that database's contents in it."""
    built = next((name for name in BUILT if name in request.fixturenames), None)
    databases = request.getfixturevalue("built_databases") if built else None
    if engine == "sqlite":
        path = tmp_path / "tracediff.db"
        if built:
            databases.copy_file(built, path)
        elif any(name in request.fixturenames for name in OPENED_FIRST):
            request.getfixturevalue("built_databases").copy_file("empty", path)
        yield path
        return
    postgres = request.getfixturevalue("postgres_databases")
    # first: a build loads into fresh()'s database
    rows = databases.rows(built, postgres) if built else None
    url = postgres.fresh()
    if rows is not None:
        postgres.fill(url, rows)
    yield url


@pytest.fixture
def samples(store):
    """The test's store, holding the sample traces (copied in by db_path)."""
    return store


@pytest.fixture
def big(store):
    """The test's store, holding 10,001 one-call traces of bulkTool, each with the word "everywhere"
    (past the counts' cap and the search's)."""
    return store


@pytest.fixture
def crowd(store):
    """The test's store, holding 3,000 tools and 3,000 releases (tests/crowds.py)."""
    return store


@pytest.fixture
def app(db_path):
    """The app on the test's store; its list counts wait as long as a loaded machine needs.

    The counts' time limits are tested on the store (tests/test_store_listing.py): a page's test
    checks what the counts show, and a count past 50 ms under load would show "?"."""
    return create_app(
        {
            "TESTING": True,
            "DATABASE": str(db_path),
            "ANALYZER": "off",
            "COUNT_TIMEOUT_S": 10.0,
            "COUNT_BUDGET_S": 60.0,
        }
    )


@pytest.fixture
def alerting_app(db_path):
    """The app with webhooks to 127.0.0.1 allowed, so alert rules can point at a local Receiver; a
    summary goes out as soon as the sender looks (what joins it is what was written before: no test
    waits)."""
    return create_app(
        {
            "TESTING": True,
            "DATABASE": str(db_path),
            "ANALYZER": "off",
            "WEBHOOK_ALLOW_HOSTS": "127.0.0.1",
            "ALERT_SUMMARY_WAIT": 0,
        }
    )


@pytest.fixture
def receiver():
    """A real local webhook receiver (tests/receiver.py) for one test."""
    from receiver import Receiver

    opened = Receiver()
    yield opened
    opened.close()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def store(db_path):
    opened = Store.open(db_path)
    yield opened
    opened.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LiveServer:
    """`tracediff serve` running as a real process group on a free port."""

    def __init__(
        self, db_path, env: dict | None = None, args=(), workers: int = 2, wrapper=(), log_path=None
    ):
        # a SQLite file, or a postgresql:// URL (then log_path says where the server's log goes)
        self.db_path = db_path if str(db_path).startswith("postgres") else Path(db_path)
        # e.g. setpriv or prlimit, to run the server under limits
        self.wrapper = list(wrapper)
        self.env = env or {}
        self.args = list(args)
        self.workers = workers
        self.process = None
        self.log_path = Path(log_path) if log_path else self.db_path.with_suffix(".log")

    def start(self, timeout: float = 30, port: int | None = None):
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "TRACEDIFF_DATABASE": str(self.db_path), **self.env}
        tracediff = shutil.which("tracediff")
        command = [*self.wrapper, *([tracediff] if tracediff else [sys.executable, "-m", "webapp"])]
        command += ["serve", "--port", str(self.port), "--workers", str(self.workers), *self.args]
        self.log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            command,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=ROOT,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited: {self.log_path.read_text()[-2000:]}")
            try:
                if httpx.get(self.url + "/api/v1/health", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError(f"server did not start: {self.log_path.read_text()[-2000:]}")

    def signal(self, signum):
        os.killpg(self.process.pid, signum)

    def kill(self):
        """SIGKILL the whole process group (master and workers)."""
        self.signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self):
        if self.process and self.process.poll() is None:
            self.signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()
        self.log.close()

    def logs(self) -> str:
        return self.log_path.read_text(errors="replace")


@pytest.fixture
def live_server(tmp_path):
    server = LiveServer(tmp_path / "live.db").start()
    yield server
    server.stop()


@pytest.fixture
def make_server(tmp_path):
    """Start servers with custom settings; all are stopped at the end."""
    started = []

    def make(db_name="live.db", **kwargs):
        server = LiveServer(tmp_path / db_name, **kwargs).start()
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()
