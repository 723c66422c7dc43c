"""A start that fails journals nothing (issue 16 item 15): everything that can fail (the
sealing key, the pins and ports, the control socket, the records recovery reads) is
checked before the start's records (``startup``, the restart's recovery: a spin in play
voided, its bets returned) are journaled. Once the start succeeds, they are journaled
once."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from conftest import REPO, one_spin, power_cut, run_replay, write_trace

WAIT_S = 30.0  # wall seconds: upper bound of the wait for the daemon's records
BETS = ({"t": 0.5, "bet": "red", "box": 2, "amount": 20},
        {"t": 0.6, "bet": "straight", "box": 3, "amount": 5, "numbers": ["17"]})


def rows(path: Path) -> list[tuple[int, str, str]]:
    con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return con.execute("SELECT seq, body, hash FROM records ORDER BY seq").fetchall()
    finally:
        con.close()


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(body) for _, body, _ in rows(path)]


def config_for(tmp_path: Path, journal: Path, control: Path) -> Path:
    text = (REPO / "controller/data/default.toml").read_text()
    text = text.replace('path = "var/journal.sqlite"', f'path = "{journal}"')
    config = tmp_path / "table.toml"
    config.write_text(text + f'\n[control]\nsocket = "{control}"\n')
    return config


def daemon(config: Path, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "controller.cli.main", "run", "--config",
                             str(config)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=cwd, env={**os.environ, "PYTHONPATH": str(REPO)})


def test_a_start_whose_control_socket_is_taken_journals_nothing(tmp_path: Path) -> None:
    journal = tmp_path / "journal.sqlite"
    tb, spin = one_spin(pocket=8, bets=BETS)
    assert run_replay(write_trace(tmp_path / "a.jsonl", tb.events()), journal).rc == 0
    power_cut(journal, spin.launch + 1.0)  # the spin was in play: a restart voids it
    assert [r["type"] for r in records(journal)].count("spin_start") == 1
    before = rows(journal)
    control = tmp_path / "c.sock"
    config = config_for(tmp_path, journal, control)
    other = socket.socket(socket.AF_UNIX)  # another controller listens there
    other.bind(str(control))
    other.listen(1)
    try:
        proc = daemon(config, tmp_path)
        _, err = proc.communicate(timeout=60)
    finally:
        other.close()
    assert proc.returncode == 1
    assert err.strip().splitlines()[-1] == (
        f"table-controller: {control}: another controller is listening there")
    assert "Traceback" not in err
    assert rows(journal) == before  # no startup, no voided spin, no settlement
    # The socket is free again: the start journals the recovery, once.
    control.unlink()
    proc = daemon(config, tmp_path)
    try:
        deadline = time.monotonic() + WAIT_S
        while not [r for r in records(journal) if r["type"] == "spin_invalid"]:
            assert proc.poll() is None, proc.communicate()[1]
            assert time.monotonic() < deadline, "no recovery journaled"
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
    after = records(journal)[len(before):]
    assert [r["type"] for r in after[:1]] == ["startup"]
    (void,) = [r for r in after if r["type"] == "spin_invalid"]
    assert void["spin"] == 1 and void["reason"] == "interrupted"
    returned = [(r["box"], r["payout"]) for r in after
                if r["type"] == "settlement" and r["game"] == 1]
    assert sorted(returned) == [(2, 0), (3, 0)]  # each bet returned once


def test_a_start_whose_sealing_key_is_unreadable_journals_nothing(tmp_path: Path) -> None:
    journal = tmp_path / "journal.sqlite"
    tb, spin = one_spin(pocket=8, bets=BETS)
    assert run_replay(write_trace(tmp_path / "a.jsonl", tb.events()), journal).rc == 0
    power_cut(journal, spin.launch + 1.0)
    before = rows(journal)
    Path(f"{journal}.sealkey").write_text("not a key")
    proc = daemon(config_for(tmp_path, journal, tmp_path / "c.sock"), tmp_path)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1 and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith(
        f"table-controller: {journal}.sealkey: not a usable sealing key")
    assert rows(journal) == before
