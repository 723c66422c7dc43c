"""What a technician reads in the daemon's console log at every table: one short line per
record, in words (README "What you see"): never raw JSON, ``null``, ``None``, ``[]`` or
``{}``, never wider than 80 columns; a game's results said by the game itself."""

from __future__ import annotations

import io
import re
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main as cli
from controller.cli.compose import load_config, read_trace
from controller.core import registry
from controller.core.clock import VirtualClock
from controller.core.logs import ConsoleLines, configure
from controller.core.loop import EventLoop
from controller.core.table import Table
from controller.games.roulette.simulation import SCENARIOS
from controller.store.journal import Journal

CONFIGS = {"roulette": "embedded:default.toml",
           "mini_baccarat": "embedded:mini-baccarat-sim.toml",
           "blackjack_plus": "embedded:blackjack-plus-sim.toml",
           "pot_luck": "embedded:pot-luck-sim.toml",
           "draw_poker": "embedded:draw-poker-sim.toml"}
# The records that conclude a game, and the words their line starts with.
RESULTS = {"roulette": ("spin_result", r"spin \d+: "), "mini_baccarat": (
    "coup_result", r"coup \d+: Banca \d+; boxes "), "blackjack_plus": (
    "coup_result", r"coup \d+: dealer \w+"),
    "pot_luck": ("coup_result", r"coup \d+: dealer \w+"),
    "draw_poker": ("hand_result", r"hand \d+: ")}
STAMP = re.compile(r"^\d\d:\d\d:\d\d\.\d{3} ")
NOT_WORDS = ("null", "None", "{", "[", "true", "false")


def simulated_log(game: str, tmp_path: Path) -> tuple[str, list[dict[str, Any]]]:
    """A simulated trace of ``game`` (``table-controller simulate``) through the daemon's
    table and its console log at info, with the game's words: the log, and the journal."""
    trace = tmp_path / f"{game}.jsonl"
    args = (["--spins", str(len(SCENARIOS)), *[a for s in SCENARIOS for a in ("--scenario", s)]]
            if game == "roulette" else ["--table", game, "--coups", "12"])
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        assert cli.main(["simulate", "--seed", "5", "--out", str(trace), *args]) == 0
    config = load_config(CONFIGS[game])
    out = io.StringIO()
    configure("info", "console", stream=out, words=registry.spec(config.game).log_words)
    try:
        with Journal(tmp_path / f"{game}.sqlite", durable=False) as journal:
            clock = VirtualClock()
            loop = EventLoop(clock, lambda e: None)
            table = Table(config, journal, loop.call_at, clock.now, None)
            loop.handler = table.handle
            loop.run_events(list(read_trace(str(trace)).events))
            records = list(journal.records())
    finally:
        configure("warning", "console")
    return out.getvalue(), records


def entries(log: str) -> list[list[str]]:
    """The log's entries: each a line with its time and the indented lines under it."""
    out: list[list[str]] = []
    for row in log.splitlines():
        if STAMP.match(row) or not out:
            out.append([row])
        else:
            out[-1].append(row)
    return out


@pytest.mark.parametrize("game", sorted(CONFIGS))
def test_every_line_fits_80_columns_and_is_in_words(game: str, tmp_path: Path) -> None:
    log, records = simulated_log(game, tmp_path)
    kind, words = RESULTS[game]
    results = [r for r in records if r["type"] == kind]
    assert results, f"the simulated {game} trace concluded no game"
    # An alarm's message is the rule's own text (journaled as it is): its words are its own.
    messages = sorted({r["message"] for r in records if r.get("message")}, key=len,
                      reverse=True)
    for entry in entries(log):
        assert all(len(row) <= 80 for row in entry), "\n".join(entry)
        said = " ".join(row.strip() for row in entry)
        for message in messages:
            said = said.replace(message, "")
        assert not [w for w in NOT_WORDS if w in said], "\n".join(entry)
    lines = [e for e in entries(log) if f" {kind} " in e[0][:32]]
    assert len(lines) == len(results)
    for entry, record in zip(lines, results, strict=True):
        said = " ".join(row.strip() for row in entry)
        assert re.search(rf"#{record['seq']} {words}", said), said
        # A daemon's record carries no trace time: its words without it stay short.
        assert len(re.sub(r" at [\d.]+ s$", "", said)) < 100, said


def test_a_mini_baccarat_box_is_said_decided_before_its_bets_are_settled(
        tmp_path: Path) -> None:
    """Seed 000 Art. 9 (g): each box is opposed to the Banca, then its losers collected and
    its winners paid; the log says the box's result first, never a settlement before the
    result it follows from."""
    log, _ = simulated_log("mini_baccarat", tmp_path)
    said = [" ".join(row.strip() for row in entry) for entry in entries(log)]
    decided: set[tuple[str, str]] = set()
    settled = 0
    for text in said:
        if found := re.search(r"box_result +#\d+ coup (\d+), box (\d+): .* against the "
                              r"Banca's .*(Punto wins|Banca wins|standoff) \(Art\. 9 [a-f]\)",
                              text):
            decided.add((found[1], found[2]))
        elif " coup_result " in text:
            decided.clear()
        elif found := re.search(r"settlement +#\d+ box (\d+) (punto|banca)", text):
            settled += 1
            coup = max((c for c, b in decided if b == found[1]), default=None)
            assert coup is not None, f"a settlement before its box's result: {text}"
    assert settled


def line(event: str, words: Any = None, **fields: Any) -> str:
    """A record's console text, its lines cut at 80 columns joined again (its words)."""
    text = ConsoleLines(words=words)(None, "info", {"event": event, "level": "info",
                                                    "timestamp": 0.0, **fields})
    assert all(len(row) <= 80 for row in text.splitlines()), text
    return re.sub(r"\n +", " ", text)


def test_a_blackjack_coup_result_groups_the_hands_by_outcome() -> None:
    record = {"seq": 101, "coup": 2, "dealer": {"cards": ["6D", "7D", "TC"], "total": 23,
                                                "bust": True},
              "boxes": [{"box": 1, "hands": [{"cards": ["KH", "8D"], "total": 18,
                                              "outcome": "win"}]},
                        {"box": 2, "hands": [{"cards": ["8S", "3D"], "total": 11,
                                              "outcome": "win"},
                                             {"cards": ["8C", "9D"], "total": 17,
                                              "outcome": "win"}]},
                        {"box": 7, "hands": [{"cards": ["TD", "5C", "9S"], "total": 24,
                                              "bust": True, "outcome": "lose"}]}]}
    text = line("coup_result", registry.spec("blackjack_plus").log_words, **record)
    assert text.endswith("coup_result  #101 coup 2: dealer bust 23; boxes win 1 2 2 (hand 2); "
                         "lose 7")


def test_a_draw_poker_hand_without_a_winner_says_so_in_words() -> None:
    record = {"seq": 91, "hand": 1, "outcome": "mano_nula", "mano": 2, "ante": 25,
              "last_bettor": None, "winners": [],
              "boxes": [{"box": 2, "cards": ["??"] * 5, "rank": None, "shown": False}],
              "pot": {"antes": 100, "bets": 0, "rake": 0}}
    text = line("hand_result", registry.spec("draw_poker").log_words, **record)
    assert text.endswith("#91 hand 1: mano_nula, no winner: stakes returned")


def test_fields_without_words_are_shown_in_words_and_empty_ones_left_out() -> None:
    text = line("recovery", seq=7, inputs=0, mismatch=None, state="idle", boxes=[2, 3],
                early=False, returned={}, note="")
    assert text.endswith("recovery     #7 boxes=2, 3 early=no inputs=0 state=idle")


def test_a_spin_start_line_leaves_the_evidence_batch_to_the_journal(tmp_path: Path) -> None:
    log, records = simulated_log("roulette", tmp_path)
    starts = [" ".join(r.strip() for r in e) for e in entries(log) if " spin_start " in e[0]]
    assert starts and all("evidence" not in row and "batch" not in row for row in starts)
    assert any(r["type"] == "spin_start" and r.get("evidence") for r in records)
    assert re.search(r"#\d+ spin 1: ball launched, \d+ bets?, limits 1–1000 chips", starts[0])
