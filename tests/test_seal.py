"""Sealing and the tamperings of issue 8, each found: cut the tail, rehash everything, append a
forged record, change the ``type`` column (the key where only the key can tell).

A sealed journal is made as the daemon makes it (``start_table``, ``start_sealing``, seals
every 20 s of trace time, a clean stop sealed), on trace time; tampering is plain SQL on the
file, as a tamperer with the machine would do it, rechaining every hash when it helps them.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from conftest import one_spin

from controller.cli.compose import games, load_config
from controller.cli.daemon.run import start_table
from controller.cli.main import RUN_ON_S
from controller.cli.tablectl import main as tablectl
from controller.core.clock import VirtualClock
from controller.core.config import apply_overrides
from controller.core.logs import get_logger
from controller.store.chain import GENESIS, canonical
from controller.store.journal import Journal
from controller.store.seal import Sealer, evolve, make_key
from controller.trace import trace_from_objects

INTERVAL = 20.0
BETS = ({"t": 0.5, "bet": "straight", "box": 1, "amount": 10, "numbers": ["17"]},
        {"t": 0.6, "bet": "red", "box": 2, "amount": 20})  # pocket 8 is 17: black


def _play(path: Path, objects: list[dict], key: Path | None) -> None:
    trace = trace_from_objects("t", enumerate(objects, 1), games())
    config = apply_overrides(load_config(), trace.meta, "t")
    with Journal(path, durable=False) as journal:
        clock = VirtualClock(trace.events[0].t)
        loop, table = start_table(config, journal, clock, get_logger())
        if key is not None:
            table.start_sealing(Sealer(key, INTERVAL))
        loop.run_events(trace.events)
        loop.run_until_idle(trace.duration + RUN_ON_S)
        table.shutdown("stopped")
        table.seal()


@pytest.fixture(scope="module")
def sealed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A sealed journal of two spins and its verification key; tests work on copies."""
    tmp = tmp_path_factory.mktemp("sealed")
    path = tmp / "journal.sqlite"
    k0 = make_key(Path(str(path) + ".sealkey"))
    tb, _ = one_spin(pocket=8, bets=BETS)
    second, _ = one_spin(pocket=3, open_at=None)
    shift = tb.events()[-1]["t"] + 1.0
    objects = tb.events() + [{**e, "t": round(e["t"] + shift, 6)} for e in second.events()[1:]]
    _play(path, objects, Path(str(path) + ".sealkey"))
    return path, k0


@pytest.fixture
def journal(sealed: tuple[Path, str], tmp_path: Path) -> Path:
    src, _ = sealed
    dst = tmp_path / "journal.sqlite"
    for suffix in ("", ".sealkey"):
        shutil.copy(str(src) + suffix, str(dst) + suffix)
    return dst


def verify(path: Path, *args: str) -> tuple[int, str]:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = tablectl(["--journal", str(path), "verify", *args])
    return rc, out.getvalue()


def rows(path: Path) -> list[dict]:
    con = sqlite3.connect(path)
    try:
        return [json.loads(b) for (b,) in con.execute("SELECT body FROM records ORDER BY seq")]
    finally:
        con.close()


def rewrite(path: Path, records: list[dict]) -> None:
    """Replace every record by ``records``, each body canonical and every hash rechained:
    what a tamperer who knows the format does."""
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("BEGIN")
    con.execute("DELETE FROM records")
    prev = GENESIS
    for seq, rec in enumerate(records, 1):
        rec = {**rec, "seq": seq}
        body = canonical(rec)
        prev = hashlib.sha256(f"{prev}\n{body}".encode()).hexdigest()
        con.execute("INSERT INTO records VALUES (?, ?, ?, ?, ?)",
                    (seq, rec["t"], rec["type"], body, prev))
    con.execute("COMMIT")
    con.close()


def test_an_untouched_sealed_journal_verifies_with_its_key(sealed: tuple[Path, str],
                                                          journal: Path) -> None:
    rc, out = verify(journal, "--key", sealed[1])
    assert rc == 0, out
    seals = [r for r in rows(journal) if r["type"] == "seal"]
    assert [s["epoch"] for s in seals] == list(range(len(seals))) and len(seals) >= 4
    assert f"seals: {len(seals)}" in out and "verified with the key" in out


def test_the_key_evolves_one_way_and_the_old_one_is_gone(sealed: tuple[Path, str],
                                                         journal: Path) -> None:
    key = json.loads(Path(str(journal) + ".sealkey").read_text())
    seals = [r for r in rows(journal) if r["type"] == "seal"]
    k = bytes.fromhex(sealed[1])
    for _ in range(len(seals)):
        k = evolve(k)
    assert key == {"epoch": len(seals), "key": k.hex()}  # k(n), never an earlier one
    assert sealed[1] not in Path(str(journal) + ".sealkey").read_text()


def test_a_wrong_key_is_told(journal: Path) -> None:
    rc, out = verify(journal, "--key", "00" * 32)
    assert rc == 1 and "its MAC is not the verification key's" in out


def test_cutting_the_tail_is_found(sealed: tuple[Path, str], journal: Path) -> None:
    recs = rows(journal)
    cut = [r for r in recs if r["type"] == "seal"][-4]["seq"]  # three seals and more go
    con = sqlite3.connect(journal, isolation_level=None)
    con.execute("DELETE FROM records WHERE seq > ?", (cut,))
    con.close()
    assert verify(journal)[0] == 0  # the chain that is left holds: only the seals can tell
    rc, out = verify(journal, "--key", sealed[1])
    assert rc == 1 and "its tail was cut" in out  # the key beside it has moved on
    Path(str(journal) + ".sealkey").unlink()  # the tamperer removes it: --until still tells
    end = recs[-1]["t"]
    rc, out = verify(journal, "--key", sealed[1], "--until", str(end))
    assert rc == 1 and "the journal was cut" in out


def test_rehashing_everything_is_found_with_the_key(sealed: tuple[Path, str],
                                                    journal: Path) -> None:
    recs = rows(journal)
    win = next(r for r in recs if r["type"] == "settlement" and r["outcome"] == "win")
    win["payout"] *= 10
    rewrite(journal, recs)
    rc, out = verify(journal)  # the chain holds together; the seals since the checkpoint not
    assert rc == 1 and "the records it sealed were changed" in out
    rc, out = verify(journal, "--full")
    assert rc == 1 and "the records it sealed were changed" in out  # the seals' head hashes
    # The tamperer fixes the head hashes in the seals too: only the MACs tell now.
    chained = []
    prev = GENESIS
    for seq, rec in enumerate(recs, 1):
        rec = {**rec, "seq": seq}
        if rec["type"] == "seal":
            rec["head_hash"] = prev
        body = canonical(rec)
        prev = hashlib.sha256(f"{prev}\n{body}".encode()).hexdigest()
        chained.append(rec)
    rewrite(journal, chained)
    assert verify(journal)[0] == 0 and verify(journal, "--full")[0] == 0
    rc, out = verify(journal, "--key", sealed[1])
    assert rc == 1 and "forged or rewritten" in out


def test_a_forged_record_appended_is_found(sealed: tuple[Path, str], journal: Path) -> None:
    recs = rows(journal)
    last = recs[-1]
    assert last["type"] == "seal" and recs[-2]["type"] == "shutdown"
    forged = {"type": "settlement", "t": last["t"] + 1, "game": 1, "box": 2, "kind": "red",
              "amount": 20, "outcome": "win", "payout": 20}
    rewrite(journal, [*recs, forged])
    assert verify(journal)[0] == 0
    rc, out = verify(journal, "--key", sealed[1])
    assert rc == 1 and "follows the seal of a clean stop" in out


def test_a_changed_type_column_is_found_and_never_pays_twice(journal: Path) -> None:
    con = sqlite3.connect(journal, isolation_level=None)
    seq = con.execute("SELECT seq FROM records WHERE type = 'settlement' "
                      "AND body LIKE '%\"outcome\":\"win\"%' ORDER BY seq DESC").fetchone()[0]
    con.execute("UPDATE records SET type = 'note' WHERE seq = ?", (seq,))
    con.close()
    rc, out = verify(journal)
    assert rc == 1 and f"record {seq}: its type or t column" in out
    # The restart reads bodies, not the column: the winning bet is not paid again.
    tb, _ = one_spin(pocket=8, open_at=None)
    _play(journal, [tb.events()[0], {"t": 10_000.0, "input": "close_table"}], None)
    recs = rows(journal)
    wins = [r for r in recs if r["type"] == "settlement" and r["outcome"] == "win"]
    assert len(wins) == len({(r["game"], r["box"], r["kind"]) for r in wins})
    (alarm,) = [r for r in recs if r["type"] == "alarm" and r["code"] == "journal_chain_broken"]
    assert f"record {seq}" in alarm["message"]
