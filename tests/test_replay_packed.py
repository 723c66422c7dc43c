"""A replay hands its trace's packed edges to the table without an edge object each
(``EventLoop.run_events`` over ``PackedEvents``: ``Table.edge(t, input, level)``); the
daemon and the tests post :class:`GpioEdge` events (``Table.handle``). Both ways must
journal the same records, byte for byte: same bodies, hashes and evidence batches, for
every game and for wheels with sensor faults, buttons, bets and dealer inputs between
the edges."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

from controller.cli.compose import compose, load_config
from controller.cli.main import RUN_ON_S
from controller.core.clock import VirtualClock
from controller.core.config import apply_overrides
from controller.core.events import PackedEvents
from controller.store.journal import Journal
from controller.trace import read_trace

FAULTS = ["valid", "missed_pass", "missing_fall", "chatter_ball_a", "chatter_rotor_b",
          "chatter_pocket", "rotor_b_dead", "wheel_stopped", "ball_suspended"]
SIMULATED = {
    "roulette faults": ["--spins", str(len(FAULTS)), *(a for s in FAULTS
                                                       for a in ("--scenario", s))],
    "serial wheel": ["--spins", "3", "--wheel", "serial"],
    "mini_baccarat": ["--table", "mini_baccarat", "--coups", "6"],
    "blackjack_plus": ["--table", "blackjack_plus", "--coups", "6"],
    "draw_poker": ["--table", "draw_poker", "--coups", "6"],
}


def journaled(trace: Path, journal: Path, packed: bool) -> list[tuple[object, ...]]:
    """The records and evidence batches a replay of ``trace`` journals, its events handed
    over packed (the replay's way) or as a plain list of events."""
    base = load_config()
    tr = read_trace(str(trace), base.games, serial_ports=base.serial, and_games=True)
    config = apply_overrides(base, tr.meta, str(trace))
    assert isinstance(tr.events, PackedEvents)
    with Journal(str(journal), durable=False) as j:
        loop, table = compose(config, j, VirtualClock(), lambda body: None)
        table.recover()
        loop.run_events(tr.events if packed else list(tr.events))
        loop.run_until_idle(tr.duration + RUN_ON_S)
        table.end_of_input("test")
    with sqlite3.connect(journal) as db:
        rows = db.execute("SELECT seq, body, hash FROM records ORDER BY seq").fetchall()
        rows += db.execute("SELECT * FROM evidence ORDER BY 1").fetchall()
    return rows


@pytest.mark.parametrize("name", SIMULATED)
def test_packed_edges_journal_what_edge_events_journal(name: str, tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    subprocess.run([sys.executable, "-m", "controller.cli.main", "simulate", "--seed", "5",
                    *SIMULATED[name], "--out", str(trace)], check=True, cwd=REPO,
                   capture_output=True, timeout=120)
    packed = journaled(trace, tmp_path / "packed.sqlite", packed=True)
    plain = journaled(trace, tmp_path / "plain.sqlite", packed=False)
    assert len(packed) > 20
    assert packed == plain


def test_a_handler_set_after_compose_sees_every_edge(tmp_path: Path) -> None:
    # A tool that wraps the table's handler (the bench times each input) must see the
    # edges too: setting the handler drops the packed edges' shortcut.
    from controller.core.events import GpioEdge

    trace = tmp_path / "trace.jsonl"
    subprocess.run([sys.executable, "-m", "controller.cli.main", "simulate", "--spins", "2",
                    "--out", str(trace)], check=True, cwd=REPO, capture_output=True,
                   timeout=120)
    base = load_config()
    tr = read_trace(str(trace), base.games, serial_ports=base.serial, and_games=True)
    seen: list[object] = []
    with Journal(str(tmp_path / "j.sqlite"), durable=False) as j:
        loop, table = compose(apply_overrides(base, tr.meta, str(trace)), j, VirtualClock())
        loop.handler = lambda event: (seen.append(event), table.handle(event))[1]
        loop.run_events(tr.events)
    edges = sum("gpio" in json.loads(line) for line in trace.read_text().splitlines())
    assert sum(type(e) is GpioEdge for e in seen) == edges > 100
