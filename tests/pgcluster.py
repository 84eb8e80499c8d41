"""A PostgreSQL cluster of a test's own, to stop and start as an outage.

initdb, pg_ctl on a free port.

The shared server on port 5432 serves every engineer's tests: outages are made here, never there.
"""

import glob
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from conftest import free_port


def _bin(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}")) or [shutil.which(name)]
    return found[-1]


class Cluster:
    """A throwaway cluster in `folder`, run by the postgres user when the tests run as root (initdb
    refuses root)."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.data = self.folder / "data"
        self.port = free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    def _run(self, *command) -> subprocess.CompletedProcess:
        return subprocess.run([*self.as_user, *command], capture_output=True, text=True, timeout=60)

    def init(self) -> "Cluster":
        self.folder.mkdir(parents=True, exist_ok=True)
        if self.as_user:
            shutil.chown(self.folder, "postgres", "postgres")
        done = self._run(
            _bin("initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8"
        )
        if done.returncode != 0:
            pytest.skip(f"cannot make a PostgreSQL cluster here: {done.stderr.strip()[-300:]}")
        return self.start()

    def start(self) -> "Cluster":
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        done = self._run(
            _bin("pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(self.folder / "log"),
            "-w",
            "start",
        )
        assert done.returncode == 0, done.stderr + (self.folder / "log").read_text()
        return self

    def stop(self) -> None:
        self._run(_bin("pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")


@pytest.fixture
def cluster():
    """A running cluster of this test's own; stopped and removed at the end."""
    if _bin("initdb") is None:
        pytest.skip("PostgreSQL's initdb is not installed")
    # pytest's tmp folders are closed to the postgres user
    folder = Path(tempfile.mkdtemp(prefix="tracediff-pg-"))
    made = Cluster(folder).init()
    yield made
    made.stop()
    shutil.rmtree(folder, ignore_errors=True)
