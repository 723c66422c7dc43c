"""A damaged evidence batch (the held-out tester's finding 8): ``tablectl export
--evidence`` and ``tablectl calibrate`` printed a Python traceback on a batch whose data
was zeroed. Each batch is checked against the SHA-256 its closing record carries before
its edges are used, as ``verify --full`` checks it: one line naming the batch, exit 1;
never a trace or a measurement made of edges that are not the ones journaled (hardware.md
§8)."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import tablectl_on as tablectl

ADVICE = "`tablectl verify --full` lists what else cannot be read (hardware.md §8)"


def sql(path: Path, statement: str, *args: object) -> None:
    con = sqlite3.connect(path, isolation_level=None)
    try:
        con.execute(statement, args)
    finally:
        con.close()


def zeroed(path: Path) -> str:
    sql(path, "UPDATE evidence SET data = zeroblob(length(data)) WHERE batch = 2")
    return "its SHA-256 is not the one record 8 carries: the batch was altered"


def one_byte(path: Path) -> str:
    # The first edge's level flipped (its second byte): the batch still decodes, to
    # other edges.
    con = sqlite3.connect(path)
    (data,) = con.execute("SELECT data FROM evidence WHERE batch = 2").fetchone()
    con.close()
    sql(path, "UPDATE evidence SET data = ? WHERE batch = 2",
        data[:1] + bytes([data[1] ^ 1]) + data[2:])
    return "its SHA-256 is not the one record 8 carries: the batch was altered"


def missing(path: Path) -> str:
    sql(path, "DELETE FROM evidence WHERE batch = 2")
    return "it is missing"


DAMAGE: dict[str, Callable[[Path], str]] = {"zeroed": zeroed, "one_byte": one_byte,
                                            "missing": missing}


@pytest.fixture(params=sorted(DAMAGE))
def damaged(request: pytest.FixtureRequest, three_spins: Path, tmp_path: Path
            ) -> tuple[Path, str]:
    path = tmp_path / "damaged.sqlite"
    shutil.copyfile(three_spins, path)
    return path, DAMAGE[request.param](path)


def test_the_undamaged_journal_exports_spin_1s_evidence(three_spins: Path,
                                                        tmp_path: Path) -> None:
    rc, _, err = tablectl(three_spins, "export", "--evidence", "1", "--out",
                          str(tmp_path / "ex.jsonl"))
    assert (rc, err) == (0, "")
    assert (tmp_path / "ex.jsonl").read_text().count('"gpio"') > 9


@pytest.mark.parametrize("argv", [("export", "--evidence", "1", "--out", "ex.jsonl"),
                                  ("calibrate", "--pocket", "20", "--recorded", "1000")])
def test_a_damaged_batch_is_one_line_naming_it_and_exit_1(
        damaged: tuple[Path, str], argv: tuple[str, ...], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    path, why = damaged
    monkeypatch.chdir(tmp_path)
    rc, out, err = tablectl(path, *argv)
    assert rc == 1 and out == ""
    assert err.splitlines() == [f"tablectl: {path}: evidence batch 2 cannot be read: {why}. "
                                f"{ADVICE}"]
    assert not (tmp_path / "ex.jsonl").exists()  # no trace of other edges


def test_verify_full_names_the_same_batch(damaged: tuple[Path, str]) -> None:
    path, _ = damaged
    rc, out, _ = tablectl(path, "verify", "--full")
    assert rc == 1 and "evidence batch 2" in out


def test_a_live_calibration_reads_none_of_the_batches_before_it(
        damaged: tuple[Path, str]) -> None:
    # It measures the edges journaled from its start on: a damaged batch of the past is
    # no reason to refuse, nor to crash. No daemon writes here: it reads no turn.
    path, _ = damaged
    rc, out, err = tablectl(path, "calibrate", "--pocket", "20", "--timeout", "0")
    assert rc == 1 and "Traceback" not in err and "evidence batch" not in err + out
    assert "\nno rotor turn with a pocket reading" in "\n" + out  # a line of its own
