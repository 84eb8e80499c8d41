"""`tracediff alerts test` links to the tracediff people reach.

TRACEDIFF_PUBLIC_URL, else the address the server beside it recorded at its start, else the default;
the line it prints says which (a real server and receiver)."""

import pytest
from click.testing import CliRunner

from webapp.cli import main

ALLOW = {"TRACEDIFF_WEBHOOK_ALLOW_HOSTS": "127.0.0.1"}


def add_and_test(db: str, receiver, env: dict):
    added = CliRunner().invoke(
        main, ["alerts", "add", receiver.url, "--db", db], env={**ALLOW, **env}
    )
    assert added.exit_code == 0, added.output
    receiver.secret = added.output.split("secret (shown once): ")[1].strip()
    return CliRunner().invoke(main, ["alerts", "test", "1", "--db", db], env={**ALLOW, **env})


@pytest.mark.slow
def test_the_test_message_links_to_the_running_server_and_says_so(make_server, tmp_path, receiver):
    server = make_server("served.db")
    tested = add_and_test(str(tmp_path / "served.db"), receiver, {"TRACEDIFF_PUBLIC_URL": ""})
    assert tested.exit_code == 0, tested.output
    assert receiver.accepted[0][1]["data"]["permalink"] == f"{server.url}/"
    assert (
        f"its link: {server.url}/ (the address tracediff serve recorded at its start)"
        in tested.output
    )
    assert server.port != 8000


@pytest.mark.slow
def test_the_public_url_wins_and_is_named(make_server, tmp_path, receiver):
    make_server("public.db")
    tested = add_and_test(
        str(tmp_path / "public.db"),
        receiver,
        {"TRACEDIFF_PUBLIC_URL": "https://tracediff.example.com/"},
    )
    assert receiver.accepted[0][1]["data"]["permalink"] == "https://tracediff.example.com/"
    assert "its link: https://tracediff.example.com/ (TRACEDIFF_PUBLIC_URL)" in tested.output


def test_without_a_server_the_default_is_used_and_the_line_says_how_to_set_it(tmp_path, receiver):
    tested = add_and_test(str(tmp_path / "alone.db"), receiver, {"TRACEDIFF_PUBLIC_URL": ""})
    assert receiver.accepted[0][1]["data"]["permalink"] == "http://127.0.0.1:8000/"
    assert "(the default address: set TRACEDIFF_PUBLIC_URL" in tested.output
