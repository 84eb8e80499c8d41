"""`serve --demo`: the sample folder's contracts and traces.

With the state changes of its story."""

from datetime import datetime, timedelta
from pathlib import Path

from ..common import jsontext
from ..pipeline import catch_up
from ..pipeline.bulk import IngestSummary, ingest_files, shifted
from ..pipeline.changes import change_problem
from ..pipeline.contracts import import_contract_files


def load_folder(store, folder: Path, redactor, now: datetime | None = None):
    """Load the contracts and NDJSON traces of a folder such as sample_traces/.

    Return the summary.

    A `story.json` beside the traces names state changes people made between files (resolve a
    problem before a later file), each at its own time, so the demo tells a problem's history.
    With `now`, every time moves by whole days so the newest event falls in the day before `now`:
    the demo then fills "last 24h" and "new", and its order (so its TD numbers) stays the same.
    """
    import_contract_files(store, sorted((folder / "contracts").glob("*.json")))
    files = sorted(folder.glob("*.ndjson"))
    story = (
        jsontext.loads((folder / "story.json").read_bytes())
        if (folder / "story.json").is_file()
        else []
    )
    days = shift_days(files, now) if now else 0
    total, start = IngestSummary(), 0
    for step in [*story, None]:
        names = [f.name for f in files]
        stop = len(files) if step is None else names.index(step["before"])
        summary = ingest_files(
            store, [str(path) for path in files[start:stop]], redactor, shift_days=days
        )
        if summary.stopped:
            raise summary.stopped[1]
        total.accepted += summary.accepted
        total.duplicates += summary.duplicates
        total.rejected += summary.rejected
        catch_up(store)
        if step is not None:
            _story_step(store, {**step, "at": shifted(step["at"], days)})
        start = stop
    return total


def _story_step(store, step: dict) -> None:
    """Apply one state change of a folder's story to the problem it names.

    Tool, kind, argument path."""
    from ..problems.states import parse_change
    from ..store.problem_filters import ProblemFilters

    found, _ = store.find_problems(ProblemFilters(tool=step["tool"], kind=step["kind"], limit=500))
    for problem in found:
        if (problem["left"] or {}).get("path") == step["path"]:
            change_problem(
                store,
                int(problem["id"][3:]),
                parse_change(step["change"]),
                step["by"],
                at=step["at"],
            )


def shift_days(files, now: datetime) -> int:
    """Return the whole days that move the newest event to the day before `now`.

    The files' newest event."""
    newest = max(
        (
            jsontext.loads(line)["ts"]
            for path in files
            for line in path.read_bytes().splitlines()
            if line.strip()
        ),
        default=None,
    )
    if newest is None:
        return 0
    return (now - datetime.fromisoformat(newest.replace("Z", "+00:00"))) // timedelta(days=1)
