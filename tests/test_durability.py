"""Power cut in the middle of a spin: the journal survives and the restart makes it whole.

``table-controller run`` on the embedded simulated table (simulator at 20× speed, journal in
tmp_path) is SIGKILLed while a spin is in play (a ``spin_start`` without its conclusion,
seen by polling the journal read-only). Then: the hash chain verifies, seq numbers are
contiguous, and every record written before the kill is still there, byte for byte, after
a restart; the restart voids the interrupted spin (``spin_invalid``, reason
``interrupted``) and returns its bets exactly once; no bet anywhere is settled twice.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, one_spin, power_cut, run_replay, write_trace

from controller.store.journal import Journal

Row = tuple[int, str, str]  # seq, body, hash
TIMEOUT = 30.0  # seconds of wall time for anything we wait for


def rows(path: Path) -> list[Row]:
    """The journal's rows, read through a read-only connection (the daemon may write)."""
    if not path.exists():
        return []
    con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return con.execute("SELECT seq, body, hash FROM records ORDER BY seq").fetchall()
    except sqlite3.OperationalError:  # not created yet
        return []
    finally:
        con.close()


def records(snapshot: list[Row]) -> list[dict[str, Any]]:
    return [json.loads(body) for _, body, _ in snapshot]


def spin_in_play(recs: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The last spin_start with no spin_result/spin_invalid after it, if any."""
    concluded = {r["spin"] for r in recs if r["type"] in ("spin_result", "spin_invalid")}
    starts = [r for r in recs if r["type"] == "spin_start"]
    return starts[-1] if starts and starts[-1]["spin"] not in concluded else None


def wait_for(path: Path, proc: subprocess.Popen[bytes],
             done: Callable[[list[dict[str, Any]]], bool]) -> list[dict[str, Any]]:
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"the daemon exited with {proc.returncode}"
        recs = records(rows(path))
        if done(recs):
            return recs
        time.sleep(0.02)
    pytest.fail("timed out waiting for the daemon's journal")


@contextmanager
def daemon_starter(tmp: Path, journal: Path) -> Iterator[Callable[[], subprocess.Popen[bytes]]]:
    """``start()`` runs ``table-controller run`` on the default config with the simulator
    at 20× and the journal at ``journal``; every daemon still running is killed at exit."""
    text = (REPO / "controller/data/default.toml").read_text()
    for old, new in (('path = "var/journal.sqlite"', f'path = "{journal}"'),
                     ("speed = 1.0", "speed = 20.0")):
        assert old in text
        text = text.replace(old, new)
    config = tmp / "table.toml"
    config.write_text(text)
    started: list[subprocess.Popen[bytes]] = []

    def start() -> subprocess.Popen[bytes]:
        with open(tmp / f"daemon-{len(started)}.log", "wb") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "controller.cli.main", "run", "--config", str(config)],
                cwd=tmp, stdout=log, stderr=log, env={**os.environ, "PYTHONPATH": str(REPO)})
        started.append(proc)
        return proc

    try:
        yield start
    finally:
        for proc in started:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def bet_key(r: dict[str, Any]) -> tuple[Any, ...]:
    return (r["game"], r["box"], r["kind"], r["amount"], tuple(r.get("numbers") or ()),
            r.get("which"))


@dataclass
class Cut:
    """The journal just after the SIGKILL (``before``) and after the restart (``after``)."""

    before: list[Row]
    after: list[Row]
    spin: dict[str, Any]  # the spin_start of the spin in play at the kill
    path: Path

    @property
    def new(self) -> list[dict[str, Any]]:
        return records(self.after)[len(self.before):]


@pytest.fixture(scope="module")
def cut(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cut]:
    tmp = tmp_path_factory.mktemp("durability")
    path = tmp / "journal.sqlite"
    with daemon_starter(tmp, path) as start:
        for _attempt in range(3):
            for old in tmp.glob("journal.sqlite*"):  # a retry starts from an empty journal
                old.unlink()
            proc = start()
            wait_for(path, proc,
                     lambda recs: (s := spin_in_play(recs)) is not None and s["bets"] > 0)
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=TIMEOUT)
            before = rows(path)
            interrupted = spin_in_play(records(before))
            if interrupted is not None:  # else the spin ended between our look and the kill
                break
        else:
            pytest.fail("could not kill the daemon while a spin was in play")
        # What the restart finds (the chain is read as the daemon will read it).
        with Journal(path) as journal:
            assert journal.verify().ok
        assert rows(path) == before

        proc = start()
        number = interrupted["spin"]

        def voided_and_running(recs: list[dict[str, Any]]) -> bool:
            # The restart's recovery, then the simulator's first dealer input or bet
            # (stopping the daemon while its simulator still prepares spins waits a 5 s
            # timeout).
            seqs = [r["seq"] for r in recs
                    if r["type"] == "spin_invalid" and r["spin"] == number]
            return bool(seqs) and any(r["type"] in ("input", "bet") and r["seq"] > seqs[0]
                                      for r in recs)

        wait_for(path, proc, voided_and_running)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=TIMEOUT) == 0
        yield Cut(before, rows(path), interrupted, path)


def test_journal_verifies_after_the_kill(cut: Cut) -> None:
    recs = records(cut.before)
    assert [seq for seq, _, _ in cut.before] == list(range(1, len(recs) + 1))
    assert [r["seq"] for r in recs] == list(range(1, len(recs) + 1))
    # The spin was in play: its bets journaled, none settled yet.
    spin = cut.spin["spin"]
    assert len([r for r in recs if r["type"] == "bet" and r["game"] == spin]) == cut.spin["bets"]
    assert not [r for r in recs if r["type"] == "settlement" and r["game"] == spin]


def test_restart_keeps_every_record_and_the_chain(cut: Cut) -> None:
    assert cut.after[:len(cut.before)] == cut.before  # byte for byte, hashes too
    assert len(cut.after) > len(cut.before)
    with Journal(cut.path, readonly=True) as journal:
        result = journal.verify()
        assert result.ok and result.records == len(cut.after)
    assert [r["seq"] for r in records(cut.after)] == list(range(1, len(cut.after) + 1))


def test_interrupted_spin_is_voided_once(cut: Cut) -> None:
    spin = cut.spin["spin"]
    found = [r for r in records(cut.after) if r["type"] in ("spin_result", "spin_invalid")
             and r["spin"] == spin]
    assert len(found) == 1
    assert (found[0]["reason"], found[0]["reasons"]) == ("interrupted", ["interrupted"])
    assert found[0] in cut.new


def test_interrupted_bets_are_returned_exactly_once(cut: Cut) -> None:
    spin = cut.spin["spin"]
    recs = records(cut.after)
    bets = [r for r in recs if r["type"] == "bet" and r["game"] == spin]
    returned = [r for r in recs if r["type"] == "settlement" and r["game"] == spin]
    assert sorted(map(bet_key, returned)) == sorted(map(bet_key, bets))
    assert all((r["outcome"], r["payout"]) == ("push", 0) for r in returned)
    # No bet anywhere is settled more often than it was placed.
    placed = Counter(bet_key(r) for r in recs if r["type"] == "bet")
    settled = Counter(bet_key(r) for r in recs if r["type"] == "settlement")
    assert not settled - placed


def test_journal_times_do_not_go_back_across_the_restart(cut: Cut) -> None:
    # The simulator's clock runs 20× faster than the wall: a restart must not restart it
    # at the wall time, before the records already written.
    times = [r["t"] for r in records(cut.after)]
    assert times == sorted(times)


# -- the same recovery in virtual time, cut exactly where we choose ----------------------
# A replay with --journal on an existing journal recovers from it first, as the daemon
# does at start. Cutting the journal's tail with SQL keeps its chain valid, as a power cut
# between two commits would.
BETS: tuple[dict[str, Any], ...] = (
    {"t": 0.5, "bet": "straight", "box": 1, "amount": 10, "numbers": ["17"]},
    {"t": 0.6, "bet": "red", "box": 2, "amount": 20},
    {"t": 0.7, "bet": "dozen", "box": 3, "amount": 5, "which": 1},
)
# Single zero, pocket index 8 is 17: black, 2nd dozen. Straight wins 350, red and the
# 1st dozen lose.
WANT = {1: ("win", 350), 2: ("lose", -20), 3: ("lose", -5)}


def all_records(path: Path) -> list[dict[str, Any]]:
    with Journal(path, readonly=True) as journal:
        assert journal.verify().ok
        return list(journal.records())


def cut_after(path: Path, seq: int) -> None:
    con = sqlite3.connect(path, isolation_level=None)
    try:
        con.execute("DELETE FROM records WHERE seq > ?", (seq,))
    finally:
        con.close()


def by_box(recs: list[dict[str, Any]], game: int) -> dict[int, list[tuple[str, int]]]:
    found: dict[int, list[tuple[str, int]]] = {}
    for r in recs:
        if r["type"] == "settlement" and r["game"] == game:
            found.setdefault(r["box"], []).append((r["outcome"], r["payout"]))
    return found


def test_cut_mid_spin_voids_it_and_returns_its_bets(tmp_path: Path) -> None:
    db = tmp_path / "journal.sqlite"
    tb, spin = one_spin(pocket=8, bets=BETS)
    first = [e for e in tb.events() if e["t"] <= spin.launch + 4.0]  # the power cut
    assert run_replay(write_trace(tmp_path / "a.jsonl", first), db).rc == 0
    power_cut(db, spin.launch + 4.0)
    assert spin_in_play(all_records(db)) is not None
    # The restart: the ball of the cut spin may still run, so the table comes back closed
    # (no late bet, no spin from the middle of a throw) until the dealer opens bets.
    tb2, _ = one_spin(pocket=8, bets=BETS)
    res = run_replay(write_trace(tmp_path / "b.jsonl", tb2.events()), db)
    assert res.rc == 0
    recs = all_records(db)
    restart = [r for r in recs if r["type"] == "state" and r["trigger"] == "restart"]
    assert [(r["from"], r["to"]) for r in restart] == [("no_more_bets", "closed")]
    voided = res.outcomes[0]
    assert (voided["spin"], voided["reason"], voided["reasons"]) == (1, "interrupted",
                                                                     ["interrupted"])
    assert by_box(recs, 1) == {1: [("push", 0)], 2: [("push", 0)], 3: [("push", 0)]}
    assert [(o["spin"], o.get("number")) for o in res.outcomes[1:]] == [(2, "17")]
    assert by_box(recs, 2) == {box: [want] for box, want in WANT.items()}


def test_a_result_and_its_settlements_are_one_input(tmp_path: Path) -> None:
    # The input that concludes a spin journals its result and every settlement together.
    db = tmp_path / "journal.sqlite"
    tb, _ = one_spin(pocket=8, bets=BETS)
    full = run_replay(write_trace(tmp_path / "a.jsonl", tb.events()), db)
    (result,) = full.of("spin_result")
    after = full.records[full.records.index(result) + 1:]
    settled = [r for r in after[:5] if r["type"] == "settlement"]
    assert [(r["box"], r["outcome"], r["payout"]) for r in settled] == [
        (box, *want) for box, want in WANT.items()]


def test_a_journal_cut_between_settlements_is_not_completed(tmp_path: Path) -> None:
    # Only a hand on the file can cut an input in two: the restart pays nothing on its own
    # (never guessing what the journal does not hold) and names the bets left unsettled.
    db = tmp_path / "journal.sqlite"
    tb, _ = one_spin(pocket=8, bets=BETS)
    full = run_replay(write_trace(tmp_path / "a.jsonl", tb.events()), db)
    first_settlement = min(r["seq"] for r in full.of("settlement"))
    cut_after(db, first_settlement)  # the result and one settlement are left
    res = run_replay(write_trace(tmp_path / "b.jsonl", [{"t": 0, "meta": {"table": "roulette"}},
                                                       {"t": 1.0, "input": "close_table"}]), db)
    assert res.rc == 0
    recs = all_records(db)
    assert by_box(recs, 1) == {1: [WANT[1]]}
    unsettled = [r for r in recs if r["type"] == "alarm" and r["code"] == "unsettled_bet"]
    assert sorted(r["bet"]["box"] for r in unsettled) == [2, 3]
    assert all(r["game"] == 1 and "not paid by the restart" in r["message"] for r in unsettled)
    assert [r["type"] for r in recs].count("spin_result") == 1
    assert not [r for r in recs if r["type"] == "spin_invalid"]


def test_bets_for_the_next_spin_survive_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "journal.sqlite"
    tb, spin = one_spin(pocket=8, bets=BETS)
    late = spin.rotor.a[-1] + 1.0  # after spin 1 is settled: a bet for spin 2
    tb.bet(late, "black", 4, 50)
    assert run_replay(write_trace(tmp_path / "a.jsonl", tb.events()), db).rc == 0
    tb2, _ = one_spin(pocket=8, open_at=None)
    res = run_replay(write_trace(tmp_path / "b.jsonl", tb2.events()), db)
    assert res.rc == 0
    recs = all_records(db)
    assert by_box(recs, 2) == {4: [("win", 50)]}  # 17 is black
    assert by_box(recs, 1) == {box: [want] for box, want in WANT.items()}
