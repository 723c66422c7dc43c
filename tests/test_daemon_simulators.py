"""Every game's daemon simulator (``GameSpec.daemon_simulator``, the embedded defaults and
``config/*-sim.toml``) plays from the controller clock's ``start``: an event in the past
would be played at once, a burst in which a dealer input overtakes the cards it follows
(the simulated draw-poker table dealt its players' passes before their cards)."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from controller.cli.compose import load_config
from controller.core import registry
from controller.core.clock import VirtualClock
from controller.core.contract import Verdict
from controller.core.events import DealerInput, Event, SerialData
from controller.core.specs import load_attribute
from controller.store.journal import Journal
from sim.daemon import SimulatedTable, SimulatorResume, TableState

CONFIGS = sorted((Path(__file__).resolve().parents[1] / "config").glob("*-sim.toml"))
WAIT = 10.0  # seconds: upper bound of a wait
START = 5000.0  # seconds of the controller clock: a daemon started long after boot


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.stem)
def test_the_simulated_session_begins_at_start_in_time_order(path: Path) -> None:
    config = load_config(str(path))
    config = replace(config, simulator=replace(config.simulator, spins=2))
    spec = registry.spec(config.game)
    play = load_attribute(spec.daemon_simulator)
    # As SimulatedTable calls it: with what it sees of the table (closed at the start).
    batch = next(iter(play(config, START, SimulatorResume(), TableState("closed"))))
    assert batch, f"{path.name}: no event"
    times = [event.t for event in batch]
    assert min(times) >= START, f"{path.name}: an event at {min(times)} s, before {START} s"
    assert times == sorted(times)


CARD_SIMS = [p for p in CONFIGS if load_config(str(p)).game in (
    "mini_baccarat", "blackjack_plus", "pot_luck", "draw_poker")]


@pytest.mark.parametrize("path", CARD_SIMS, ids=lambda p: p.stem)
def test_a_simulated_card_table_refuses_new_shoe_in_one_line(path: Path) -> None:
    # Issue 16, item 18: the simulated dealer's session is made up front from one shoe; a
    # person's new_shoe would leave the table waiting for new decks while the simulated
    # dealer deals on. It is refused before the table, with one line; others pass.
    config = load_config(str(path))
    table = SimulatedTable(config, VirtualClock(), lambda e: None, SimulatorResume())
    try:
        posted: list[Event] = []
        replies: list[Verdict] = []
        post = table.screen(lambda event, reply=None: posted.append(event))
        post(DealerInput(1.0, "new_shoe", {"reason": "a marked card"}), replies.append)
        post(DealerInput(2.0, "inspector_clear", {}), replies.append)
    finally:
        table.stop()
    (refused,) = replies
    assert not refused.accepted and refused.code == "simulator_cannot"
    assert "new_shoe" in refused.reason and "\n" not in refused.reason
    assert [e.action for e in posted if isinstance(e, DealerInput)] == ["inspector_clear"]


def test_a_simulated_dealer_s_input_waits_for_the_shoe_bytes_before_it() -> None:
    # A hit posted while its card's bytes are still on their way through the
    # pseudo-terminal would overtake the card (issue 16, item 18): the input is posted only
    # once the serial driver has posted those bytes to the loop.
    config = load_config(str(next(p for p in CARD_SIMS if "blackjack" in p.stem)))
    posted: list[Event] = []
    table = SimulatedTable(config, VirtualClock(), posted.append, SimulatorResume())
    card = SerialData(1.0, "shoe", b"[Game]<Card:5D>\r\n")
    hit = DealerInput(1.5, "hit", {"box": 1})
    try:
        table._expect([card, hit])
        dealer = threading.Thread(target=table._post_after_the_shoe, args=(hit,))
        dealer.start()
        dealer.join(0.2)
        assert dealer.is_alive() and posted == []  # the card is not read yet: it waits
        table.reading(posted.append)(card)  # the serial driver posts the card's bytes
        dealer.join(WAIT)
    finally:
        table.stop()
    assert posted == [card, hit]


def test_tablectl_new_shoe_on_a_simulated_mini_baccarat_daemon_is_refused_in_one_line(
        tmp_path: Path) -> None:
    # Issue 16, item 18, as a person sees it: the daemon's simulated table, and
    # `tablectl input new_shoe` through its control socket.
    repo = Path(__file__).resolve().parents[1]
    config = tmp_path / "table.toml"
    text = (repo / "config" / "mini-baccarat-sim.toml").read_text(encoding="utf-8")
    config.write_text(text.replace('"var/mini-baccarat.sqlite"', f'"{tmp_path / "j.sqlite"}"')
                      .replace('"var/mini-baccarat.sock"', f'"{tmp_path / "c.sock"}"')
                      .replace("spins = 0", "spins = 2"), encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli.main", "run", "--config",
                             str(config)], cwd=tmp_path, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            out = subprocess.run([sys.executable, "-m", "controller.cli.tablectl", "input",
                                  "new_shoe", "reason=test", "--config", str(config)],
                                 capture_output=True, text=True, cwd=tmp_path)
            if out.returncode != 3 or time.monotonic() > deadline:  # 3: no daemon yet
                break
            time.sleep(0.1)
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0
    assert out.returncode == 1, out
    # One refusal, its words wrapped at 80 columns (continuation lines indented).
    first, *rest = out.stdout.splitlines()
    line = " ".join([first, *(r.strip() for r in rest)])
    assert all(r.startswith("  ") for r in rest) and max(map(len, [first, *rest])) <= 80
    assert line.startswith("refused: ") and "simulated dealer" in line and "new_shoe" in line
    with Journal(tmp_path / "j.sqlite", readonly=True) as journal:
        assert not list(journal.records(types=("shoe_closed",)))  # nothing was done
