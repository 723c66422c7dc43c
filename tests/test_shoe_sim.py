"""The simulated shoe (sim/shoe_sim.py) and the simulated Mini-Bacará dealer on it
(controller/games/mini_baccarat/simulation.py): deterministic, physically possible, and always
what the rules ask for (seed 000 Art. 6-11, seed 002 Art. 5-6), checked by the controller
itself replaying its traces."""

from __future__ import annotations

import io
import json
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from controller.cards.card import Card, parse_card
from controller.cli import main as cli
from controller.cli.compose import load_config, read_trace
from controller.core.events import DealerInput, SerialData
from controller.games.mini_baccarat import simulation
from controller.games.mini_baccarat.simulation import (
    SimConfig,
    SimResult,
    coup_events,
    simulate,
    simulated_events,
)
from controller.trace import write_trace

REPO = Path(__file__).resolve().parents[1]
ART5_STEPS = ("show", "turn", "scramble", "shuffle", "cut", "load")  # seed 002 Art. 5 a-f
ART6_STEPS = ("shuffle", "cut", "load")  # seed 002 Art. 6, the optional steps left out
DECKS = 4
CUT_MIN = 40  # seed 002 Art. 5 e: the cut card not less than 40 cards from the bottom
NOISY = SimConfig(misread_rate=0.05, warning_rate=0.03)


def replay_objects(objects: list[dict[str, Any]], tmp: Path, name: str) -> list[dict[str, Any]]:
    """``table-controller replay`` of the objects (virtual time): the records it printed."""
    trace = tmp / f"{name}.jsonl"
    write_trace(trace, objects)
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        rc = cli.main(["replay", str(trace), "--journal", str(tmp / f"{name}.sqlite")])
    assert rc == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


@pytest.fixture(scope="module")
def noisy(tmp_path_factory: pytest.TempPathFactory) -> tuple[SimResult, list[dict[str, Any]]]:
    """40 coups (three shoes) with misreads, reader warnings, insurance and five choices,
    and their replay."""
    result = simulate(40, 3, NOISY)
    return result, replay_objects(result.objects, tmp_path_factory.mktemp("sim"), "noisy")


def drawn_per_shoe(objects: list[dict[str, Any]]) -> list[list[Card]]:
    """Cards drawn from each loaded shoe, in order, read from the trace: burns, game
    cards and the dealer's corrections of misread cards."""
    shoes: list[list[Card]] = []
    for obj in objects:
        if obj.get("input") == "procedure_step" and obj["step"] == "load":
            shoes.append([])
        elif obj.get("input") == "card":
            shoes[-1].append(parse_card(obj["card"]))
        elif "serial" in obj:
            text = obj["text"].strip()
            if text.startswith(("[Game]<Card:", "[Burn]<Card:")):
                shoes[-1].append(parse_card(text.split(":")[1].rstrip(">")))
    return shoes


def test_same_seed_same_trace_other_seed_other_trace() -> None:
    assert coup_events(12, 5) == coup_events(12, 5)
    assert coup_events(12, 5) != coup_events(12, 6)
    noisy = coup_events(12, 5, misread_rate=0.2, warning_rate=0.2)
    assert noisy == coup_events(12, 5, misread_rate=0.2, warning_rate=0.2)


def test_trace_shape_meta_times_and_art5_procedure_first() -> None:
    objects = coup_events(3, 2, 4, start=100.0)
    assert objects[0] == {"t": 100.0, "meta": {"table": "mini_baccarat", "decks": 4}}
    times = [o["t"] for o in objects]
    assert times == sorted(times) and times[0] == 100.0
    steps = [o["step"] for o in objects[1:7]]
    assert steps == list(ART5_STEPS)  # seed 002 Art. 5 a-f, in order
    assert objects[7]["text"].startswith("[Burn]<Card:")  # Art. 5 g
    assert objects[8] == {"t": objects[8]["t"], "input": "open_bets"}


def test_every_card_of_the_shoe_is_dealt_at_most_once(
    noisy: tuple[SimResult, list[dict[str, Any]]],
) -> None:
    result, _ = noisy
    drawn = drawn_per_shoe(result.objects)
    assert len(drawn) == len(result.shoes) >= 2
    for cards, shoe in zip(drawn, result.shoes, strict=True):
        # A prefix of one shuffled 4-deck shoe: each physical card drawn once at most.
        assert sorted(shoe.cards) == sorted(parse_card(f"{r}{s}") for r in "A23456789TJQK"
                                            for s in "SHDC" for _ in range(DECKS))
        assert cards == shoe.cards[: len(cards)] == shoe.drawn
        assert max(Counter(cards).values()) <= DECKS


def test_the_game_never_asks_for_a_card_it_does_not_get(
    noisy: tuple[SimResult, list[dict[str, Any]]],
) -> None:
    result, records = noisy
    starts = [r["coup"] for r in records if r["type"] == "coup_start"]
    results = [r["coup"] for r in records if r["type"] == "coup_result"]
    assert starts == results == list(range(1, result.coups + 1))
    # Only the reader's own warnings: no refused card, bet, choice or procedure step.
    assert {r["code"] for r in records if r["type"] == "alarm"} == {"reader_warning"}
    game_lines = sum(1 for o in result.objects if "serial" in o and "[Game]" in o["text"])
    # Every card read went to a hand, or to the count-out of a shoe closed at the cut
    # card (seed 002 Art. 4), which found the decks complete each time.
    assert sum(1 for r in records if r["type"] in ("card", "count_out_card")) == game_lines
    closed = [r for r in records if r["type"] == "shoe_closed"]
    counted = [r for r in records if r["type"] == "count_out"]
    assert len(counted) == len(closed) == len(result.shoes) - 1 >= 1
    assert all(c["missing"] == [] and c["seen"] == 4 * 52 for c in counted)
    manual = [r for r in records if r["type"] == "card" and r["manual"]]
    assert manual and not any(r["face_down"] for r in manual)
    assert any(r["kind"] == "insurance" for r in records if r["type"] == "settlement")


def test_five_choices_come_before_the_banca_second_card(
    noisy: tuple[SimResult, list[dict[str, Any]]],
) -> None:
    _, records = noisy
    by_coup: dict[int, list[dict[str, Any]]] = {}
    for r in records:
        if "coup" in r and r["type"] != "alarm":
            by_coup.setdefault(r["coup"], []).append(r)
    chosen = 0
    for coup in by_coup.values():
        punto = {r["box"] for r in coup if r["type"] == "bet_placed" and r["kind"] == "punto"}
        banca_cards = [r["seq"] for r in coup if r["type"] == "card" and r["hand"] == "banca"]
        for result in (r for r in coup if r["type"] == "coup_result"):
            fives = {b["box"] for b in result["boxes"]
                     if b["box"] in punto and _two_card_total(b["cards"]) == 5}
            choices = [r for r in coup if r["type"] == "five_choice" and r["by"] == "dealer"]
            assert {c["box"] for c in choices} == fives  # Art. 8: every such box chose
            assert all(c["seq"] < banca_cards[1] for c in choices)
            chosen += len(choices)
    assert chosen > 0


# Points by rank, from RULES.md §2: "Ten and figures count 0, ace 1".
POINTS = {"A": 1, "T": 0, "J": 0, "Q": 0, "K": 0} | {str(n): n for n in range(2, 10)}


def _two_card_total(cards: list[str]) -> int:
    return sum(POINTS[parse_card(c).rank] for c in cards[:2]) % 10


def test_cut_card_placed_40_to_half_a_shoe_from_the_bottom(
    noisy: tuple[SimResult, list[dict[str, Any]]],
) -> None:
    shoes = [s for seed in range(30) for s in simulate(1, seed).shoes]
    shoes += noisy[0].shoes
    depths = [shoe.below_cut for shoe in shoes]
    assert all(CUT_MIN <= d <= DECKS * 52 // 2 for d in depths)  # seed 002 Art. 5 e
    assert len(set(depths)) > 10  # a random depth, not a constant


def test_cut_card_line_then_art6_procedure_after_the_coup(
    noisy: tuple[SimResult, list[dict[str, Any]]],
) -> None:
    result, records = noisy
    cuts = [r for r in records if r["type"] == "cut_card"]
    assert len(cuts) == sum(s.cut_seen for s in result.shoes) >= 1
    assert all(not c["late"] and c["cards_left"] >= CUT_MIN for c in cuts)
    # Seed 002 Art. 6: the shoe closes after the coup, then shuffle, cut, load, burn.
    steps_after_close: list[str] = []
    closed = False
    for r in records:
        if r["type"] == "shoe_closed":
            assert r["reason"] == "cut_card"
            closed, steps_after_close = True, []
        elif closed and r["type"] == "shoe_procedure":
            steps_after_close.append(r["step"])
            if r["step"] == "burn":
                assert steps_after_close == [*ART6_STEPS, "burn"]
                closed = False
    assert not closed


def test_bets_are_whole_chips_within_the_limits_and_insurance_within_half() -> None:
    cfg = SimConfig(limits=(5, 300), insurance_rate=1.0)
    result = simulate(40, 3, cfg)
    bets = [o for o in result.objects if "bet" in o]
    table_bets = [b for b in bets if b["bet"] != "insurance"]
    assert all(isinstance(b["amount"], int) and 5 <= b["amount"] <= 300 for b in table_bets)
    assert all(1 <= b["box"] <= 5 for b in bets)
    assert any(b["bet"] == "insurance" for b in bets)


def test_simulated_events_for_the_daemon() -> None:
    config = load_config(str(REPO / "config" / "mini-baccarat-sim.toml"))
    assert config.simulator.spins == 0  # a batch of DAEMON_BATCH_COUPS
    config = replace(config, simulator=replace(config.simulator, spins=5))
    events = simulated_events(config, 1000.0, "shoe")
    assert events[0].t >= 1000.0
    assert isinstance(events[0], DealerInput) and events[0].action == "procedure_step"
    assert {e.port for e in events if isinstance(e, SerialData)} == {"shoe"}
    coups = sum(1 for e in events if isinstance(e, DealerInput) and e.action == "open_bets")
    assert coups == 5


def test_cli_simulate_writes_a_readable_trace(tmp_path: Path) -> None:
    out = tmp_path / "sim.jsonl"
    rc = cli.main(["simulate", "--table", "mini_baccarat", "--coups", "3", "--seed", "9",
                   "--out", str(out)])
    assert rc == 0
    trace = read_trace(str(out))
    assert trace.meta == {"table": "mini_baccarat", "decks": 4}
    assert sum(1 for e in trace.events
               if isinstance(e, DealerInput) and e.action == "open_bets") == 3


def test_trace_for_a_config_keeps_its_limits_and_replays_without_an_alarm(
    tmp_path: Path,
) -> None:
    # config/mini-baccarat-sim.toml: min_bet 5 (Art. 5 limits). A bet under it would be
    # refused and its box left out, while the simulated dealer still deals to it.
    path = REPO / "config" / "mini-baccarat-sim.toml"
    config = load_config(str(path))
    assert config.limits.min_bet == 5
    trace = tmp_path / "sim.jsonl"
    simulation.write_trace(config, str(trace), 40, 4, None)
    objects = [json.loads(line) for line in trace.read_text().splitlines()]
    table_bets = [o["amount"] for o in objects if o.get("bet") in ("punto", "banca")]
    assert min(table_bets) >= 5 and max(table_bets) <= config.limits.max_bet
    assert not any("<Game>" in o.get("text", "") or "<W0x" in o.get("text", "")
                   for o in objects)  # a clean trace: no misread, no reader warning
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        rc = cli.main(["replay", str(trace), "--config", str(path),
                       "--journal", str(tmp_path / "j.sqlite")])
    assert rc == 0
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [r for r in records if r["type"] == "alarm"] == []
    assert [r["coup"] for r in records if r["type"] == "coup_result"] == list(range(1, 41))


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        simulate(0, 1)
    for decks in (0, 1, 6, 8):  # the decree's sabot is four decks (seed 000 Art. 2)
        with pytest.raises(ValueError, match=f"^{decks} decks: a Mini-Bacará sabot is 4 decks"):
            SimConfig(decks=decks)
    with pytest.raises(ValueError):
        SimConfig(misread_rate=1.5)
