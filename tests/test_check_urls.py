"""`tracediff check` of a request given as a URL.

--method, --url (--request-url) and --header, or an `http` object in a fixture folder's call.json;
the exported fixtures zip carries it, so a GET call replays as it was analysed."""

import io
import json
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import envelope, ndjson

from webapp.cli import main

ORDERS_URL = (
    "https://api.example.com/orders?customer_email=ann%40example.com&status=paid&page_size=5"
)


def write(folder: Path, name: str, value) -> str:
    path = folder / name
    path.write_text(value if isinstance(value, str) else json.dumps(value))
    return str(path)


def check(*args):
    return CliRunner().invoke(main, ["check", *map(str, args)])


def arguments(tmp_path):
    return write(
        tmp_path, "tool-args.json", {"email": "ann@example.com", "status": "paid", "limit": 5}
    )


def test_a_get_given_by_its_url_is_checked_without_a_body(tmp_path):
    result = check("--arguments", arguments(tmp_path), "--method", "GET", "--url", ORDERS_URL)
    assert result.exit_code == 0, result.output


def test_a_status_missing_from_the_url_fails_at_the_argument_the_contract_maps(tmp_path):
    url = "https://api.example.com/orders?customer_email=ann%40example.com&page_size=5"
    mapping = {"mapping": [{"arguments": "/status", "request": "query:/status"}]}
    contract = write(tmp_path, "contract.json", mapping)
    result = check("--arguments", arguments(tmp_path), "--contract", contract, "--request-url", url)
    assert result.exit_code == 1 and "dropped" in result.output and "status" in result.output
    # one call alone cannot tell an optional status the layer filters by from one it lost
    assert check("--arguments", arguments(tmp_path), "--request-url", url).exit_code == 0


def test_a_path_parameter_with_another_id_fails_and_the_right_one_passes(tmp_path):
    args = write(tmp_path, "a.json", {"invoiceId": "inv_9f2", "paidAt": "2026-03-01T10:00:00Z"})
    body = write(tmp_path, "b.json", {"paid_at": "2026-03-01T10:00:00Z"})
    good = check(
        "--arguments",
        args,
        "--request",
        body,
        "--method",
        "post",
        "--url",
        "https://api.example.com/v1/invoices/inv_9f2/pay",
    )
    assert good.exit_code == 0, good.output
    bad = check(
        "--arguments",
        args,
        "--request",
        body,
        "--url",
        "https://api.example.com/v1/invoices/inv_000/pay",
        "--format",
        "json",
    )
    assert bad.exit_code == 1
    [finding] = [f for f in json.loads(bad.output)["findings"] if f["severity"] == "warning"]
    assert finding["right"]["path"] == "path:/2"


def test_a_header_is_checked_and_a_header_without_a_colon_exits_2(tmp_path):
    args = write(tmp_path, "a.json", {"idempotency_key": "ik-1", "amount": 5})
    body = write(tmp_path, "b.json", {"amount": 5})
    url = "https://x.example/charges"
    assert (
        check(
            "--arguments",
            args,
            "--request",
            body,
            "--url",
            url,
            "--header",
            "Idempotency-Key: ik-1",
        ).exit_code
        == 0
    )
    assert (
        check(
            "--arguments",
            args,
            "--request",
            body,
            "--url",
            url,
            "--header",
            "Idempotency-Key: ik-2",
        ).exit_code
        == 1
    )
    broken = check("--arguments", args, "--url", url, "--header", "Idempotency-Key")
    assert (
        broken.exit_code == 2
        and "Name: value" in broken.output
        and "Traceback" not in broken.output
    )


def test_a_folder_whose_call_json_has_an_http_object_is_checked_with_its_url(tmp_path):
    folder = tmp_path / "orders"
    folder.mkdir()
    arguments(folder)
    write(
        folder,
        "call.json",
        {"tool": "findOrders", "status": None, "http": {"method": "GET", "url": ORDERS_URL}},
    )
    assert check(folder).exit_code == 0
    write(
        folder,
        "call.json",
        {"tool": "findOrders", "http": {"url": ORDERS_URL.replace("=paid", "=refunded")}},
    )
    assert check(folder).exit_code == 1
    write(folder, "call.json", {"tool": "findOrders", "http": {"url": 5}})
    assert check(folder).exit_code == 2


def test_the_fixtures_zip_of_a_get_call_replays_with_its_url(client, tmp_path):
    events = [
        envelope("arguments", {"email": "ann@example.com", "status": "paid", "limit": 5}),
        envelope(
            "request", None, http={"method": "GET", "url": ORDERS_URL.replace("=paid", "=refunded")}
        ),
    ]
    del events[1]["payload"]
    assert client.post("/api/v1/ingest", data=ndjson(*events)).status_code == 200
    response = client.get("/traces/4bf92f3577b34da6a3ce929d0e0e4736/fixtures.zip?call=call_01")
    folder = tmp_path / "zip"
    zipfile.ZipFile(io.BytesIO(response.data)).extractall(folder)
    assert json.loads((folder / "call.json").read_text())["http"]["url"].endswith("page_size=5")
    assert "--url" in (folder / "README.md").read_text()
    result = check(folder)
    assert result.exit_code == 1 and "status" in result.output


@pytest.mark.parametrize(
    "url",
    [
        "not a url",
        "api.example.com/orders",
        "ftp://x/y",
        "https:///orders",
        "/orders x",
        # a host urllib cannot split (an unclosed IPv6 bracket) is bad input, not a traceback
        "http://[::1/orders?limit=5",
    ],
)
def test_a_url_that_is_neither_absolute_nor_a_path_is_a_usage_error(tmp_path, url):
    result = check("--arguments", arguments(tmp_path), "--method", "GET", "--url", url)
    assert result.exit_code == 2 and "--url" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize(
    "url", [ORDERS_URL, "/orders?status=paid&page_size=5", "http://localhost:8080/orders"]
)
def test_an_absolute_url_or_a_path_is_taken(tmp_path, url):
    assert check("--arguments", arguments(tmp_path), "--method", "GET", "--url", url).exit_code in (
        0,
        1,
    )


def test_fixture_and_contract_files_a_windows_editor_saved_with_a_bom_are_read(tmp_path):
    args = tmp_path / "tool-args.json"
    args.write_bytes(
        b"\xef\xbb\xbf"
        + json.dumps({"email": "ann@example.com", "status": "paid", "limit": 5}).encode()
    )
    tools = tmp_path / "tools.json"
    tools.write_bytes(b'\xef\xbb\xbf[{"name": "findOrders", "input_schema": {"type": "object"}}]')
    result = check("--arguments", args, "--method", "GET", "--url", ORDERS_URL, "--contract", tools)
    assert result.exit_code == 0, result.output
