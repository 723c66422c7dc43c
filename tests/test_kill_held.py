"""A kill between a held record and its commit (issue 20): a serial wheel's status lines
and a GPIO wheel's ``sensor_fault`` notes wait for the next commit
(``controller.core.held``); the table is SIGKILLed while some are held in a spin in play,
then restarted on the rest of the trace. The held ones are lost, and nothing else: every
record committed before the kill is there byte for byte, the spin the kill cut is voided
(``interrupted``) once, every other spin concluded once with every settlement, no bet
settled twice, each verdict's evidence (its batch, the wheel line that concluded it)
journaled before it, and ``verify --full`` finds nothing wrong.

The child is tests/kill_child.py with its ``HELD`` argument.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO
from test_kill import bet_key, rows

from controller.cli import main as cli
from controller.core import registry
from controller.store.journal import Journal
from controller.store.records import any_schema
from controller.store.verify import check_full

CASES = {  # name: (simulate options, config, what is held at the kill)
    "gpio_sensor_fault": (["--spins", "4", "--seed", "3", "--scenario", "chatter_ball_a"],
                          "embedded:default.toml", "notes"),
    "serial_wheel_lines": (["--wheel", "serial", "--spins", "4", "--seed", "3"],
                           "embedded:roulette-serial-sim.toml", "lines"),
}
VERDICTS = ("spin_result", "spin_invalid", "spin_held")


def child(trace: Path, journal: Path, config: str, *held: str
          ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(REPO / "tests" / "kill_child.py"), str(trace), str(journal),
         config, "0", *held], capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO), "HELD_AFTER": "3"})


@pytest.mark.parametrize("case", list(CASES))
def test_a_kill_while_records_are_held_loses_only_them(tmp_path: Path, case: str) -> None:
    sim, config, kind = CASES[case]
    trace, journal = tmp_path / "trace.jsonl", tmp_path / "journal.sqlite"
    with contextlib.redirect_stderr(io.StringIO()):
        assert cli.main(["simulate", *sim, "--out", str(trace)]) == 0
    killed = child(trace, journal, config, kind)
    assert killed.returncode == -9, killed.stderr
    held = next(line.split() for line in killed.stdout.splitlines()
                if line.startswith("held "))
    lines, notes, seq = int(held[1]), int(held[2]), int(held[3])
    assert (lines if kind == "lines" else notes) > 0
    cut = rows(journal)
    assert cut[-1][0] == seq  # what was held is not in the journal
    done = child(trace, journal, config)
    assert done.returncode == 0, done.stderr
    final = rows(journal)
    assert final[:len(cut)] == cut  # nothing committed changed or lost
    with Journal(journal, readonly=True) as j:
        report = check_full(j, any_schema(registry.games()))
    assert report.ok, (report.chain, report.problems)  # every batch matches its record
    recs = [json.loads(body) for _, body, _ in final]
    whole(recs, seq)


def whole(recs: list[dict[str, Any]], killed_at: int) -> None:
    """Each spin started and concluded once, the one cut voided, every bet settled once,
    each serial verdict's concluding line journaled before it."""
    starts = Counter(r["spin"] for r in recs if r["type"] == "spin_start")
    assert starts and max(starts.values()) == 1
    ends = {r["spin"]: r for r in recs if r["type"] in VERDICTS}
    assert len(ends) == sum(1 for r in recs if r["type"] in VERDICTS)
    cut = [s for s in starts if next(r["seq"] for r in recs if r["type"] == "spin_start"
                                     and r["spin"] == s) <= killed_at < ends[s]["seq"]]
    assert len(cut) == 1 and ends[cut[0]]["reason"] == "interrupted"
    placed = Counter(bet_key(r) for r in recs if r["type"] == "bet")
    settled = Counter(bet_key(r) for r in recs if r["type"] == "settlement")
    assert not settled - placed
    assert all(settled[k] == n for k, n in placed.items() if k[0] in ends)
    for end in ends.values():
        if end.get("concluded_by"):
            lines = "".join(r["text"] for r in recs if r["type"] == "serial"
                            and r["seq"] < end["seq"])
            assert end["concluded_by"] in lines, end
