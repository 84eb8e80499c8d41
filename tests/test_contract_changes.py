"""Contract changes are atomic.

Each reads and writes the stored contract as its one writer, in one transaction, on both stores; a
change made meanwhile is never overwritten, and an import is all or nothing. Thirty confirms and
three adopts against a real server: test_hostile_contracts.py."""

import threading

import pytest

from webapp.contracts import ContractError
from webapp.pipeline import mappings as toolmappings
from webapp.pipeline.contracts import save_contracts
from webapp.pipeline.definitions import learn_definitions
from webapp.store import Store

SCHEMA = {"type": "object", "properties": {"seats": {"type": "integer"}}}


def test_a_change_reads_the_stored_contract_and_saves_what_it_returns(store):
    seen = []
    saved = store.change_tool(
        "bookTable", lambda stored: seen.append(stored) or {"arguments_schema": SCHEMA}
    )
    assert seen == [None]
    assert (
        saved
        == store.get_tool("bookTable")
        == {
            "name": "bookTable",
            "arguments_schema": SCHEMA,
            "updated_at": saved["updated_at"],
        }
    )
    # left alone
    assert store.change_tool("bookTable", lambda stored: seen.append(stored)) is None
    assert seen[1] == saved and store.get_tool("bookTable") == saved


def test_what_one_change_raises_rolls_back_every_change_of_its_transaction(store):
    store.put_tool("a", {"description": "kept"})

    def refused(stored):
        raise ContractError("no")

    with pytest.raises(ContractError):
        store.change_tools({"a": lambda stored: {"description": "changed"}, "b": refused})
    assert store.get_tool("a")["description"] == "kept" and store.get_tool("b") is None


def test_an_import_refused_for_one_tool_saves_none(store):
    store.put_tool("a", {"description": "kept"})
    broken = {"a": {"description": "new"}, "b": {"arguments_schema": {"type": "integr"}}}
    with pytest.raises(ContractError):
        save_contracts(store, broken)
    assert store.get_tool("a")["description"] == "kept" and store.get_tool("b") is None


# Threads with a store each: PostgreSQL's pool lends a process 4 connections, one the test's own
THREADS, ROUNDS = 3, 10


def _at_once(db_path, work) -> None:
    """Run work(store, n) for n in 0..THREADS * ROUNDS on THREADS threads, each with its own store,
    started together: each thread's rounds interleave with the others'."""
    start, failures = threading.Barrier(THREADS, timeout=60), []

    def run(thread):
        opened = Store.open(db_path)
        try:
            start.wait()
            for n in range(thread, THREADS * ROUNDS, THREADS):
                work(opened, n)
        except Exception as error:  # noqa: BLE001 - told below, with the thread that raised it
            failures.append((thread, error))
        finally:
            opened.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert failures == []


def test_confirms_imports_and_learnt_definitions_at_once_are_all_kept(db_path, store):
    def work(opened, n):
        # an import that changes the description: merged into what is stored then
        if n % 4 == 3:
            save_contracts(opened, {"bookTable": {"description": f"import {n}"}})
        # a definition seen in traffic: the arguments schema, when none is declared
        elif n == 0:
            learn_definitions(opened, {"bookTable": SCHEMA})
        else:
            toolmappings.confirm(opened, "bookTable", f"/field{n}", f"/sent{n}")

    _at_once(db_path, work)
    contract = store.get_tool("bookTable")
    pairs = {(m["arguments"], m["request"]) for m in contract["mapping"]}
    confirmed = [n for n in range(THREADS * ROUNDS) if n % 4 != 3 and n != 0]
    assert pairs == {(f"/field{n}", f"/sent{n}") for n in confirmed}
    assert contract["arguments_schema"] == SCHEMA
    assert contract["description"].startswith("import ")
