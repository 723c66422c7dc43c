"""A checkpoint is recovered from only once its own record holds (issue 16, item 13): its
hash chains from the record before it, the record after it chains from its hash, and the
seal after it seals the chain as it is. An edited checkpoint (roulette limits of 10^9, a
Mini-Bacará coup number moved on by 3) is a broken chain, for the daemon's start and for
``tablectl verify``, and the restart passes over it to the checkpoint before it: the bets
and the coup numbers are those the journal's true records give. A record forged after
the last input is a recovery mismatch on a card table, never ignored.

Journals are made as the daemon makes them (``start_table``, a checkpoint at every game
boundary, seals every 20 s of trace time, a clean stop sealed); tampering is plain SQL on
the file, as a tamperer with the machine would do it: the body alone, or the body and
every hash after it rechained.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from conftest import nothing_dealt_while_down, one_spin

from controller.cli import main as cli
from controller.cli.compose import games, load_config, read_trace
from controller.cli.daemon.run import start_table
from controller.cli.main import RUN_ON_S
from controller.cli.tablectl import main as tablectl
from controller.core.clock import VirtualClock
from controller.core.config import DEFAULT_CONFIG, Config, apply_overrides
from controller.core.logs import get_logger
from controller.store.chain import canonical
from controller.store.journal import Journal
from controller.store.seal import Sealer, make_key
from controller.trace import Trace, trace_from_objects

INTERVAL = 20.0
TABLE_MAX = 1000  # the embedded roulette table's [limits] max_bet
HUGE_BET = 500_000


def play(config: Config, path: Path, events: list[Any], *, sealed: bool = True,
         stop: bool = True) -> None:
    """The daemon's life on the journal at ``path``: its start (a restart when the journal
    holds records), a checkpoint at every game boundary, ``events``, a clean stop."""
    key = Path(str(path) + ".sealkey")
    with Journal(path, durable=False) as journal:
        clock = VirtualClock(max(events[0].t, journal.last_t))
        loop, table = start_table(config, journal, clock, get_logger())
        nothing_dealt_while_down(table)
        table.checkpoint_every = 1
        if sealed:
            table.start_sealing(Sealer(key, INTERVAL))
        loop.run_events(events)
        loop.run_until_idle(events[-1].t + RUN_ON_S)
        table.checkpoint_every = 10**9  # none after the stop
        if stop:
            table.shutdown("stopped")
            table.seal()


def rows(path: Path) -> list[dict[str, Any]]:
    con = sqlite3.connect(path)
    try:
        return [json.loads(b) for (b,) in con.execute("SELECT body FROM records ORDER BY seq")]
    finally:
        con.close()


def forge(path: Path, seq: int, record: dict[str, Any], rechain: bool) -> None:
    """Put ``record`` as record ``seq``; with ``rechain`` its hash and every hash after it
    are made again, as a tamperer who knows the format does (the seals are left)."""
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("BEGIN")
    body = canonical(record)
    con.execute("UPDATE records SET body = ?, type = ? WHERE seq = ?",
                (body, record["type"], seq))
    if rechain:
        (prev,) = con.execute("SELECT hash FROM records WHERE seq = ?", (seq - 1,)).fetchone()
        prev = prev.hex()  # the chain covers the hex digits; the column holds the bytes
        for n, text in con.execute("SELECT seq, body FROM records WHERE seq >= ? ORDER BY seq",
                                   (seq,)).fetchall():
            prev = hashlib.sha256(f"{prev}\n{text}".encode()).hexdigest()
            con.execute("UPDATE records SET hash = ? WHERE seq = ?", (bytes.fromhex(prev), n))
    con.execute("COMMIT")
    con.close()


def verify(path: Path) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = tablectl(["--journal", str(path), "verify"])
    return rc, out.getvalue()


def last_checkpoint(path: Path) -> dict[str, Any]:
    return [r for r in rows(path) if r["type"] == "checkpoint"][-1]


def trace_of(objects: list[dict[str, Any]]) -> tuple[Config, Trace]:
    trace = trace_from_objects("t", enumerate(objects, 1), games())
    return apply_overrides(load_config(), trace.meta, "t"), trace


# -- roulette: limits of 10^9 in the last checkpoint ----------------------------------
@pytest.fixture
def roulette(tmp_path: Path) -> Path:
    """A sealed roulette journal: spin 1 settled, bets open for spin 2, a clean stop; the
    limits in force are the config's (1 to 1000)."""
    path = tmp_path / "journal.sqlite"
    make_key(Path(str(path) + ".sealkey"))
    tb, _ = one_spin(pocket=8, bets=({"t": 0.5, "bet": "red", "box": 2, "amount": 20},))
    config, trace = trace_of(tb.events())
    play(config, path, trace.events)
    return path


@pytest.mark.parametrize("rechain", [False, True], ids=["body", "body and hashes"])
def test_limits_edited_in_the_last_checkpoint_are_a_broken_chain_and_never_apply(
        roulette: Path, rechain: bool) -> None:
    checkpoint = last_checkpoint(roulette)
    assert checkpoint["state"]["table_state"] == "bets_open"
    state = {**checkpoint["state"], "limits": {"min_bet": 1, "max_bet": 10**9}}
    forge(roulette, checkpoint["seq"], {**checkpoint, "state": state}, rechain)
    rc, out = verify(roulette)
    assert rc == 1 and out.startswith("BROKEN: ")
    assert f"checkpoint {checkpoint['seq']} does not hold" in out
    before = len(rows(roulette))
    t = rows(roulette)[-1]["t"] + 1.0
    config, trace = trace_of([{"t": 0, "meta": {"table": "roulette"}},
                              {"t": t, "bet": "red", "box": 1, "amount": HUGE_BET},
                              {"t": t + 1, "bet": "black", "box": 3, "amount": TABLE_MAX}])
    play(config, roulette, trace.events, sealed=False)
    after = rows(roulette)[before:]
    (alarm,) = [r for r in after if r["type"] == "alarm" and r["code"] == "journal_chain_broken"]
    assert f"checkpoint {checkpoint['seq']} does not hold" in alarm["message"]
    bets = [(r["box"], r["amount"]) for r in after if r["type"] == "bet"]
    assert bets == [(3, TABLE_MAX)]  # the table's own limit, not the forged one
    (refused,) = [r for r in after if r["type"] == "alarm" and r["code"] == "bet_refused"]
    assert refused["bet"]["amount"] == HUGE_BET and str(TABLE_MAX) in refused["message"]
    # The next checkpoint follows the last true one, not the forged one.
    nxt = [r for r in after if r["type"] == "checkpoint"]
    assert nxt and nxt[0]["previous"] < checkpoint["seq"]


def test_an_untouched_journal_recovers_from_its_last_checkpoint(roulette: Path) -> None:
    checkpoint = last_checkpoint(roulette)
    rc, out = verify(roulette)
    assert rc == 0 and f"from record {checkpoint['seq']} (the last checkpoint)" in out
    before = len(rows(roulette))
    t = rows(roulette)[-1]["t"] + 1.0
    config, trace = trace_of([{"t": 0, "meta": {"table": "roulette"}},
                              {"t": t, "bet": "red", "box": 1, "amount": 10}])
    play(config, roulette, trace.events, sealed=False)
    after = rows(roulette)[before:]
    assert not [r for r in after if r["type"] == "alarm"]
    assert [(r["box"], r["amount"]) for r in after if r["type"] == "bet"] == [(1, 10)]


# -- Mini-Bacará: the coup number moved on in the last checkpoint ---------------------
COUPS = 20  # the shoe closes after coup 16: a checkpoint there


@pytest.fixture(scope="module")
def baccarat(tmp_path_factory: pytest.TempPathFactory) -> tuple[Config, list[Any]]:
    """A simulated Mini-Bacará trace of ``COUPS`` coups and its config."""
    path = tmp_path_factory.mktemp("baccarat") / "sim.jsonl"
    with contextlib.redirect_stderr(io.StringIO()):
        assert cli.main(["simulate", "--table", "mini_baccarat", "--coups", str(COUPS),
                         "--seed", "4", "--out", str(path)]) == 0
    trace = read_trace(str(path))
    return apply_overrides(load_config(DEFAULT_CONFIG), trace.meta, str(path)), trace.events


def coup_starts(path: Path) -> list[int]:
    return [r["coup"] for r in rows(path) if r["type"] == "coup_start"]


@pytest.mark.parametrize("rechain", [False, True], ids=["body", "body and hashes"])
def test_a_coup_number_moved_on_in_the_checkpoint_shifts_no_coup(
        tmp_path: Path, baccarat: tuple[Config, list[Any]], rechain: bool) -> None:
    config, events = baccarat
    path = tmp_path / "journal.sqlite"
    make_key(Path(str(path) + ".sealkey"))
    cut = 9 * len(events) // 10  # past the closed shoe
    play(config, path, events[:cut])
    checkpoint = last_checkpoint(path)
    coup = checkpoint["state"]["game"]["coup"]
    assert coup >= 1
    game = {**checkpoint["state"]["game"], "coup": coup + 3}
    forge(path, checkpoint["seq"], {**checkpoint, "state": {**checkpoint["state"],
                                                            "game": game}}, rechain)
    rc, out = verify(path)
    assert rc == 1 and f"checkpoint {checkpoint['seq']} does not hold" in out
    play(config, path, events[cut:], sealed=False)
    assert coup_starts(path) == list(range(1, COUPS + 1))
    alarms = [r for r in rows(path) if r["type"] == "alarm"
              and r["code"] == "journal_chain_broken"]
    assert len(alarms) == 1 and f"checkpoint {checkpoint['seq']}" in alarms[0]["message"]


def test_a_record_forged_after_the_last_input_is_a_recovery_mismatch(
        tmp_path: Path, baccarat: tuple[Config, list[Any]]) -> None:
    config, events = baccarat
    path = tmp_path / "journal.sqlite"
    cut = 9 * len(events) // 10  # past the closed shoe
    play(config, path, events[:cut], sealed=False, stop=False)  # a power cut
    recs = rows(path)
    paid = [r for r in recs if r["type"] == "settlement"][-1]
    forged = {**paid, "seq": recs[-1]["seq"] + 1, "t": recs[-1]["t"],
              "payout": abs(paid["payout"]) + 1000, "outcome": "win"}
    con = sqlite3.connect(path, isolation_level=None)
    (prev,) = con.execute("SELECT hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
    body = canonical(forged)
    con.execute("INSERT INTO records VALUES (?, ?, ?, ?, ?)",
                (forged["seq"], forged["t"], "settlement", body,
                 hashlib.sha256(f"{prev.hex()}\n{body}".encode()).digest()))
    con.close()
    assert verify(path)[0] == 0  # the chain holds: only the replay can tell
    play(config, path, events[cut:], sealed=False)
    after = [r for r in rows(path) if r["seq"] > forged["seq"]]
    recovery = next(r for r in after if r["type"] == "recovery")
    assert recovery["mismatch"] == (f"record {forged['seq']} (settlement) follows the last "
                                    "input and no input makes it")
    assert [r for r in after if r["type"] == "alarm" and r["code"] == "recovery_mismatch"]
    assert coup_starts(path) == list(range(1, COUPS + 1))
