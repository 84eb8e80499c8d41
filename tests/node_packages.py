"""The npm packages the Node recipe imports.

Installed once from docs/recipes/node's lock file into a folder outside the repository."""

import fcntl
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

LOCKED = Path(__file__).resolve().parent.parent / "docs" / "recipes" / "node"


def npm_binary() -> str:
    """Return the npm executable; skip without it, but fail on CI (.ci/run installs it)."""
    found = shutil.which("npm")
    if found:
        return found
    if os.environ.get("CI") == "true":
        pytest.fail("npm is not installed; .ci/run installs it (apt-get install npm)")
    pytest.skip("npm is not installed: the Node recipe needs the OpenTelemetry JS packages")


def node_modules() -> Path:
    """Return a node_modules folder holding the locked packages, running `npm ci` the first time."""
    lock = (LOCKED / "package-lock.json").read_bytes()
    home = Path("/tmp") / f"tracediff-node-{hashlib.sha256(lock).hexdigest()[:12]}"
    home.mkdir(exist_ok=True)
    # one install at a time, whichever test worker gets here first
    with open(home / ".lock", "w") as guard:
        fcntl.flock(guard, fcntl.LOCK_EX)
        if not (home / "node_modules" / ".package-lock.json").exists():
            for name in ("package.json", "package-lock.json"):
                shutil.copy(LOCKED / name, home / name)
            done = subprocess.run(
                [npm_binary(), "ci", "--no-audit", "--no-fund"],
                cwd=home,
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert done.returncode == 0, done.stderr[-4000:]
    return home / "node_modules"


def beside_packages(script: Path) -> str:
    """Link `script` beside the packages; return the link, which node runs in place with
    --preserve-symlinks-main (the file itself, not a copy, resolving its imports there)."""
    modules = node_modules()
    # one folder per script path: two checkouts never run each other's file
    folder = modules.parent / hashlib.sha256(str(script).encode()).hexdigest()[:12]
    folder.mkdir(exist_ok=True)
    for link, target in ((folder / "node_modules", modules), (folder / script.name, script)):
        if not link.is_symlink():
            link.symlink_to(target)
    return str(folder / script.name)
