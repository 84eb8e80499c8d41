"""Where the shipped folders are.

The installed package's copy, else the checkout's."""

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent
ROOT = PACKAGE.parent


def resource_dir(name: str) -> Path:
    """Return templates/, static/, sample_traces/ or docs/.

    The installed package's copy, else the checkout's."""
    packaged = PACKAGE / name
    return packaged if packaged.is_dir() else ROOT / name


def doc_page(name: str) -> str:
    """Return where a page of docs/ is on this machine, for messages.

    The wheel ships docs/ in the package."""
    return str(resource_dir("docs") / name)
