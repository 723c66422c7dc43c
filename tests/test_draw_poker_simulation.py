"""The simulated poker table (controller/games/draw_poker/simulation.py): ``table-controller
simulate --table draw_poker`` writes a trace that ``replay`` turns into records, and its
players take every path of seed 003: Mano Nula (num. 8 b), folds in each round (num. 8 d,
12 b), a card refused face up (num. 11), a wrong count (num. 10), ties with an odd cent
(num. 18)."""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, run_replay

from controller.cli import main as cli
from controller.cli.compose import load_config
from controller.games.draw_poker.simulation import SimConfig, simulate


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    folder = tmp_path_factory.mktemp("poker-sim")
    trace = folder / "hands.jsonl"
    config = str(REPO / "config" / "draw-poker-sim.toml")
    assert cli.main(["simulate", "--table", "draw_poker", "--coups", "40", "--seed", "3",
                     "--config", config, "--out", str(trace)]) == 0
    res = run_replay(trace, folder / "journal.sqlite", "--config", config)
    assert res.rc == 0, res.stderr
    return res.records


def test_every_simulated_hand_is_concluded_and_nothing_is_refused(
        replayed: list[dict[str, Any]]) -> None:
    starts = [r["hand"] for r in replayed if r["type"] == "hand_start"]
    results = [r["hand"] for r in replayed if r["type"] == "hand_result"]
    assert starts == results == list(range(1, 41))
    assert [r for r in replayed if r["type"] == "alarm"] == []


def test_the_simulated_players_take_every_path(replayed: list[dict[str, Any]]) -> None:
    outcomes = {r["outcome"] for r in replayed if r["type"] == "hand_result"}
    assert {"mano_nula", "showdown", "folds"} <= outcomes
    folds = {r["round"] for r in replayed if r["type"] == "round_action"
             and r["action"] == "fold"}
    assert folds == {1, 2}
    voids = {r["reason"] for r in replayed if r["type"] == "hand_void"}
    assert voids == {"refused_card", "wrong_count"}
    cards_held = {r["cards_held"] for r in replayed
                  if r["type"] == "hand_void" and r["reason"] == "wrong_count"}
    assert {4, 6} <= cards_held  # a replacement missing, and one too many
    shares = defaultdict(list)
    for r in replayed:
        if r["type"] == "settlement" and r["kind"] == "ante" and "antes_less_rake" in r:
            shares[r["game"]].append(Decimal(str(r["antes_less_rake"])))
    odd = [s for s in shares.values() if len(s) > 1 and max(s) - min(s) == Decimal("0.01")]
    assert odd, "a split pot with an odd cent"


def test_the_chips_of_every_simulated_hand_are_conserved(
        replayed: list[dict[str, Any]]) -> None:
    net: dict[int, Decimal] = defaultdict(Decimal)
    for r in replayed:
        if r["type"] == "settlement":
            net[r["game"]] += Decimal(str(r["payout"]))
        elif r["type"] == "rake":
            net[r["hand"]] += Decimal(str(r["rake"]))
    assert len(net) == 40 and set(net.values()) == {Decimal(0)}


def test_the_simulation_is_deterministic_and_within_the_config_limits() -> None:
    config = load_config(str(REPO / "config" / "draw-poker-sim.toml"))
    low, high = config.limits.min_bet, config.limits.max_bet
    first = simulate(12, 5)
    assert first == simulate(12, 5) and first != simulate(12, 6)
    antes = [o["amount"] for o in simulate(30, 5, SimConfig(limits=(low, high))) if "bet" in o]
    assert antes and all(low <= a <= high for a in antes)


def test_the_embedded_config_is_the_shipped_one() -> None:
    shipped = (REPO / "config" / "draw-poker-sim.toml").read_text(encoding="utf-8")
    embedded = (REPO / "controller" / "data" / "draw-poker-sim.toml").read_text(encoding="utf-8")
    assert shipped == embedded
    assert load_config("embedded:draw-poker-sim.toml").game == "draw_poker"


def test_a_replayed_simulated_trace_gives_the_same_records_twice(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    assert cli.main(["simulate", "--table", "draw_poker", "--coups", "8", "--seed", "9",
                     "--out", str(trace)]) == 0
    one = run_replay(trace, tmp_path / "a.sqlite").records
    two = run_replay(trace, tmp_path / "b.sqlite").records
    assert one == two and any(r["type"] == "hand_result" for r in one)
