"""`tracediff check`.

Replay fixture files against a contract in CI, one call or folders of them.

Exit codes: 0 every call passes, 1 a call has a warning, an error or a schema violation, 2 a usage
or input error (a file that is not JSON, a contract that cannot be used, a folder without fixtures).
"""

from dataclasses import dataclass
from pathlib import Path

from . import output
from .inputs import Case, InputError, fixture_folders, folder_case, request_http, single_case
from .run import exit_code, run

__all__ = ["CheckOptions", "InputError", "check", "request_http"]


@dataclass
class CheckOptions:
    """What the command line asked for."""

    folders: tuple = ()
    # snapshot name -> path, for one call
    files: dict | None = None
    contract: str | None = None
    tool: str | None = None
    status: int | None = None
    # text, github or json
    output: str = "text"
    junit: str | None = None
    # the request's method, URL and headers (--method, --url, --header)
    http: dict | None = None
    # what a flagless result told the model (--result-is-error)
    result_is_error: bool | None = None


def cases(options: CheckOptions) -> list[Case]:
    """Read the call of the files given, or of every fixture folder under them.

    Every fixture folder under the folders given."""
    if not options.folders:
        files, http = options.files, options.http
        return [
            single_case(
                files, options.status, options.contract, options.tool, http, options.result_is_error
            )
        ]
    return [
        folder_case(folder, options.contract, options.tool, options.status)
        for folder in fixture_folders(options.folders)
    ]


def check(options: CheckOptions, echo) -> int:
    """Check every case, print the report with `echo`, write the JUnit file.

    Return the exit code."""
    outcomes = run(cases(options))
    folders = bool(options.folders)
    if options.output == "json":
        echo(output.as_json(outcomes, folders))
    elif options.output == "github":
        echo(output.github(outcomes))
    else:
        echo(output.text(outcomes, folders))
    if options.junit:
        try:
            Path(options.junit).write_bytes(output.junit(outcomes))
        except OSError as error:
            raise InputError(
                f"{options.junit}: cannot write the JUnit report: {error.strerror or error}"
            ) from None
    return exit_code(outcomes)
