"""A damaged page of the journal's type index (what a worn SD card does to one page; the
held-out tester's finding 7). SQLite's queries by record type go through that index and,
on such a page, miss records without an error: ``status`` said the last spin was 2,
``recall 3`` that spin 3 does not exist, ``stats`` counted 2 spins of 3, and plain
``verify`` said ok. Every tool that answers from the journal checks the index first:
each command stops with one line saying the journal's file is damaged and exit 1, and a
replay onto the journal exits 3 (the damaged-journal path) before journaling anything;
never a figure that drops a spin (hardware.md §8)."""

from __future__ import annotations

import contextlib
import io
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import run_replay
from conftest import tablectl_on as tablectl

from controller.cli import main as cli

EXIT_JOURNAL_UNREADABLE = 3
ADVICE = "`tablectl verify --full` lists what else cannot be read (hardware.md §8)"


def index_page(path: Path) -> tuple[int, int]:
    """The offset of the type index's root page in the file, and the page size."""
    con = sqlite3.connect(path)
    try:
        (root,) = con.execute("SELECT rootpage FROM sqlite_master "
                              "WHERE name = 'records_type'").fetchone()
        (size,) = con.execute("PRAGMA page_size").fetchone()
    finally:
        con.close()
    return (root - 1) * size, size


def overwrite_cells(path: Path) -> None:
    """64 bytes of the index's page overwritten from its 40th (the tester's damage: cell
    pointers that point out of the page)."""
    at, _ = index_page(path)
    with open(path, "r+b") as f:
        f.seek(at + 40)
        f.write(b"\xde\xad\xbe\xef" * 16)


def fewer_cells(path: Path) -> None:
    """The count of cells in the index page's header lowered to 16: every entry past it is
    gone, and each page SQLite reads is well formed."""
    at, _ = index_page(path)
    with open(path, "r+b") as f:
        f.seek(at + 3)
        f.write((16).to_bytes(2, "big"))


DAMAGE: dict[str, Callable[[Path], None]] = {"cells": overwrite_cells, "count": fewer_cells}


@pytest.fixture(params=sorted(DAMAGE))
def damaged(request: pytest.FixtureRequest, three_spins: Path, tmp_path: Path
            ) -> Path:
    path = tmp_path / "damaged.sqlite"
    shutil.copyfile(three_spins, path)
    DAMAGE[request.param](path)
    return path


def test_the_undamaged_journal_answers_spin_3(three_spins: Path) -> None:
    # What the damaged copies must never contradict: spin 3 exists and gave 30.
    rc, out, _ = tablectl(three_spins, "status")
    assert rc == 0 and "last game    spin 3: 30" in out
    rc, out, _ = tablectl(three_spins, "recall", "3")
    assert rc == 0 and "spin 3" in out
    rc, out, _ = tablectl(three_spins, "stats")
    assert rc == 0 and out.splitlines()[0].endswith(": 3 spins")
    rc, out, _ = tablectl(three_spins, "verify")
    assert rc == 0 and out.startswith("ok: ")


@pytest.mark.parametrize("argv", [("status",), ("recall", "3"), ("recall", "--last", "1"),
                                  ("stats",), ("verify",), ("export", "--since", "0"),
                                  ("status", "--json")])
def test_a_damaged_index_page_is_one_line_and_exit_1_never_a_wrong_figure(
        damaged: Path, argv: tuple[str, ...]) -> None:
    rc, out, err = tablectl(damaged, *argv)
    assert rc == 1 and out == "", (rc, out)
    (line,) = err.splitlines()
    assert line.startswith(f"tablectl: {damaged}: the journal's file is damaged (")
    assert "type index" in line and line.endswith(f"). {ADVICE}")


def test_verify_full_still_names_every_problem_of_a_damaged_index(damaged: Path) -> None:
    rc, out, err = tablectl(damaged, "verify", "--full")
    assert rc == 1 and err == ""
    assert "SQLite integrity check: " in out and "missing from index records_type" in out
    assert out.splitlines()[-1].startswith("FAILED: ")


def test_a_replay_onto_a_journal_with_a_damaged_index_exits_3_journaling_nothing(
        damaged: Path, tmp_path: Path) -> None:
    trace = tmp_path / "one.jsonl"
    with contextlib.redirect_stderr(io.StringIO()):
        assert cli.main(["simulate", "--spins", "1", "--seed", "9", "--out", str(trace)]) == 0
    before = damaged.read_bytes()
    res = run_replay(trace, damaged)
    assert res.rc == EXIT_JOURNAL_UNREADABLE and res.records == []
    (line,) = res.stderr.splitlines()
    assert line.startswith(f"table-controller: {damaged}: the journal's file is damaged (")
    assert "type index" in line and "The table cannot resume from it" in line
    assert damaged.read_bytes() == before
