"""PostgreSQL connections.

One pool per process, opened after gunicorn forks, and the store's SQL written with SQLite's
placeholders (`?`, `?1`, `:name`) passed to psycopg as its own (`%s`, `%(name)s`)."""

import contextlib
import os
import re
import threading

from ..errors import StoreUnavailable

INSTALL_HINT = (
    "a postgresql:// database needs the extra: pip install 'tracediff[postgres]' (psycopg 3 and "
    "psycopg-pool; in a checkout: pip install -e '.[postgres]')"
)
# connections per process; see docs/deploy.md for when to add PgBouncer
POOL_MIN, POOL_MAX = 1, 4
LOCK_WAIT_MS = 5_000
PROBE_TIMEOUT_S = 5

# String literals and quoted names are kept as they are; `::` is a cast, not a parameter.
_TOKENS = re.compile(r"""'(?:[^']|'')*'|"(?:[^"]|"")*"|::|\?(\d*)|:([A-Za-z_]\w*)|%""")
_translated: dict[str, tuple[str, bool]] = {}
_pools: dict[str, object] = {}
_pools_lock = threading.Lock()


def psycopg_modules():
    """Import psycopg and its pool, or say in one line what to install."""
    try:
        import psycopg
        import psycopg_pool
    except ImportError:
        raise SystemExit(INSTALL_HINT) from None
    return psycopg, psycopg_pool


def translate(sql: str) -> tuple[str, bool]:
    """Return (psycopg SQL, numbered) for a statement in SQLite's placeholder style."""
    if sql in _translated:
        return _translated[sql]
    numbered = False

    def swap(match):
        nonlocal numbered
        token = match.group(0)
        if token.startswith("?"):
            if match.group(1):
                numbered = True
                return f"%(p{match.group(1)})s"
            return "%s"
        if match.group(2):
            return f"%({match.group(2)})s"
        # psycopg reads % everywhere, string literals too
        return token.replace("%", "%%")

    result = (_TOKENS.sub(swap, sql), numbered)
    _translated[sql] = result
    return result


def bind(sql: str, params):
    """Return (sql, params) ready for psycopg."""
    text, numbered = translate(sql)
    if numbered and not isinstance(params, dict):
        params = {f"p{i}": value for i, value in enumerate(params, 1)}
    # never None: psycopg then reads %% as %
    return text, (() if params is None else params)


def pool_for(url: str):
    """Return this process's pool for a URL, made after any fork.

    A pool never crosses processes."""
    key = f"{os.getpid()}:{url}"
    with _pools_lock:
        if key not in _pools:
            psycopg, psycopg_pool = psycopg_modules()
            _probe(psycopg, url)
            _pools[key] = psycopg_pool.ConnectionPool(
                url,
                min_size=POOL_MIN,
                max_size=POOL_MAX,
                open=True,
                timeout=5,
                # a restarted server's dead connections go
                check=psycopg_pool.ConnectionPool.check_connection,
                # no statement waits for a lock longer than a request waits for a connection: then
                # 503
                kwargs={
                    "autocommit": True,
                    "prepare_threshold": None,
                    "options": f"-c lock_timeout={LOCK_WAIT_MS}",
                },
                name="tracediff",
            )
        return _pools[key]


def _probe(psycopg, url: str) -> None:
    """Connect once before making a pool, so a bad setting is told at once.

    A wrong password, database or port is told in one line (a pool would retry it in the background
    until its timeout and say only that it timed out)."""
    try:
        psycopg.connect(url, connect_timeout=PROBE_TIMEOUT_S).close()
    except psycopg.Error as error:
        lines = [line.strip() for line in str(error).splitlines() if line.strip()]
        raise StoreUnavailable(" ".join(lines[:2]) or type(error).__name__) from None


def pool_stats() -> dict:
    """Sum this process's pools.

    Connections open (`size`), idle (`available`), allowed (`max`), requests waiting for one
    (`waiting`); all 0 before any pool is made."""
    prefix = f"{os.getpid()}:"
    with _pools_lock:
        pools = [pool for key, pool in _pools.items() if key.startswith(prefix)]
    totals = {"size": 0, "available": 0, "max": 0, "waiting": 0}
    for pool in pools:
        stats = pool.get_stats()
        for name, key in (
            ("size", "pool_size"),
            ("available", "pool_available"),
            ("max", "pool_max"),
            ("waiting", "requests_waiting"),
        ):
            totals[name] += stats.get(key, 0)
    return totals


def close_pool(url: str) -> None:
    """Close this process's pool for a URL (a test's database before it is dropped)."""
    with _pools_lock:
        pool = _pools.pop(f"{os.getpid()}:{url}", None)
    if pool is not None:
        pool.close()


class Connection:
    """A pooled psycopg connection that speaks like sqlite3's.

    Execute, executemany, query."""

    def __init__(self, url: str, wait_s: float):
        self.url, self.wait_s, self.raw = url, wait_s, None
        self._pool = pool_for(url)
        self.live()

    def live(self):
        """Return a working connection.

        One a restarted or lost server broke goes back for a new one."""
        if self.raw is not None and (self.raw.closed or self.raw.broken):
            # the pool discards a broken connection
            self._pool.putconn(self.raw)
            self.raw = None
        if self.raw is None:
            with unavailable_as_error():
                self.raw = self._pool.getconn(timeout=self.wait_s)
        return self.raw

    def execute(self, sql: str, params=()):
        text, values = bind(sql, params)
        cursor = self.live().cursor()
        cursor.execute(text, values)
        return cursor

    def execute_within(self, sql: str, params, timeout_ms: int):
        """Run one statement the server cancels after timeout_ms.

        In one round trip (no BEGIN, SET, COMMIT).

        The SET LOCAL and the statement travel as one simple query, which runs as one implicit
        transaction: the timeout holds for this statement only. Parameters are bound client-side."""
        psycopg = psycopg_modules()[0]
        text, values = bind(sql, params)
        cursor = psycopg.ClientCursor(self.live())
        cursor.execute(f"SET LOCAL statement_timeout = {int(timeout_ms)}; {text}", values)
        # past the SET's empty result
        cursor.nextset()
        return cursor

    def executemany(self, sql: str, rows):
        rows = list(rows)
        if not rows:
            return self.raw.cursor()
        text, _ = translate(sql)
        cursor = self.live().cursor()
        cursor.executemany(text, [bind(sql, row)[1] for row in rows])
        return cursor

    def query(self, sql: str, params=()):
        """Yield rows as dicts (as sqlite-utils' Database.query does)."""
        cursor = self.execute(sql, params)
        if cursor.description is None:
            return
        names = [column.name for column in cursor.description]
        for row in cursor:
            yield dict(zip(names, row))

    @property
    # sqlite-utils' Database exposes its connection as .conn; the store reads both ways
    def conn(self):
        return self

    @contextlib.contextmanager
    def transaction(self):
        with self.live().transaction():
            yield self

    def close(self) -> None:
        if self.raw is not None:
            self._pool.putconn(self.raw)
            self.raw = None

    def __del__(self):
        # a store dropped without close() (a one-shot CLI command) gives its connection back
        with contextlib.suppress(Exception):
            self.close()


@contextlib.contextmanager
def unavailable_as_error():
    """Turn an unusable database into StoreUnavailable.

    A database that is down, read-only, full of connections or in recovery."""
    psycopg, psycopg_pool = psycopg_modules()
    try:
        yield
    except psycopg.errors.ProgramLimitExceeded:
        # a value past what the server holds is a bug to see in the logs, not an outage to wait out
        raise
    except (
        psycopg.OperationalError,
        psycopg_pool.PoolTimeout,
        psycopg.errors.ReadOnlySqlTransaction,
        psycopg.errors.DiskFull,
        psycopg.errors.TooManyConnections,
    ) as error:
        raise StoreUnavailable(
            str(error).splitlines()[0] if str(error) else type(error).__name__
        ) from error
