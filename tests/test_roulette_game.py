"""The roulette round as a dealer sees it, through ``replay``.

Inputs the current state does not allow are refused with an ``alarm`` record that says
why, and change nothing; a bet on a box the table does not seat is refused; a limits change
that is not whole chips within the config's bounds is refused, the old limits holding; the
automatic "no va más" (``auto_no_more_bets_lap_s``) closes the bets while the ball slows
down. Seed 001's articles (Art. 12 invalid throws, Art. 16 limits changed after the game)
are tests/articles/test_seed_001_roulette*.py's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import (
    REAL_LAPS,
    REPO,
    Replay,
    ReplayFn,
    TraceBuilder,
    accepted_amounts,
    one_spin,
    table_trace,
)


def refusal(res: Replay, after_seq: int = 0) -> dict[str, Any]:
    """The one alarm journaled after ``after_seq``."""
    found = [a for a in res.alarms() if a["seq"] > after_seq]
    assert len(found) == 1, found
    return found[0]


def input_seq(res: Replay, action: str) -> int:
    """seq of the journaled echo of the first dealer input ``action``."""
    return next(r["seq"] for r in res.of("input") if r["action"] == action)


def states(res: Replay) -> list[str]:
    return [r["to"] for r in res.of("state")]


# -- inputs the state does not allow --------------------------------------------------
def test_no_more_bets_while_closed_is_refused(replay: ReplayFn) -> None:
    res = replay(table_trace({"t": 0.5, "input": "no_more_bets"}))
    assert res.rc == 0
    alarm = refusal(res)
    assert "closed" in alarm["message"]
    assert res.of("state") == []  # nothing moved


def test_void_with_no_spin_is_refused(replay: ReplayFn) -> None:
    res = replay(table_trace({"t": 0.1, "input": "open_bets"},
                             {"t": 0.5, "input": "void", "reason": "foreign_object"}))
    alarm = refusal(res, input_seq(res, "void"))
    assert "spin" in alarm["message"]
    assert res.outcomes == []


@pytest.mark.parametrize("args", [{"reason": "dealer_sneezed"}, {}, {"reason": "interrupted"}])
def test_void_with_an_unknown_reason_is_refused(replay: ReplayFn, args: dict[str, Any]) -> None:
    # Only Art. 12 (d)-(g) may be declared by the dealer; the spin goes on to its result.
    tb, spin = one_spin(pocket=8)
    tb.inp(spin.launch + 4.0, "void", **args)
    res = replay(tb)
    alarm = refusal(res, input_seq(res, "void"))
    if "reason" in args:
        assert args["reason"] in alarm["message"]
    assert res.outcome()["type"] == "spin_result"
    assert res.outcome()["number"] == spin.number


def test_void_after_the_result_is_refused(replay: ReplayFn) -> None:
    # A spin settled stays settled: no second settlement, no voided result (Art. 14 goes
    # through the Inspector, not a late void).
    bet = {"t": 0.5, "bet": "straight", "box": 1, "amount": 10, "numbers": ["17"]}
    tb, spin = one_spin(pocket=8, bets=[bet])
    tb.inp(spin.rotor.a[-1] + 1.0, "void", reason="foreign_object")
    res = replay(tb)
    refusal(res, input_seq(res, "void"))
    assert [(o["type"], o.get("number")) for o in res.outcomes] == [("spin_result", "17")]
    assert [(s["outcome"], s["payout"]) for s in res.of("settlement")] == [("win", 350)]


def test_bet_after_no_more_bets_is_refused(replay: ReplayFn) -> None:
    tb, spin = one_spin(pocket=8)
    tb.bet(spin.launch + 3.5, "red", 1, 10)
    res = replay(tb)
    alarm = refusal(res)
    assert alarm["code"] == "bet_refused"
    assert res.of("bet") == [] and res.of("settlement") == []


def test_bet_while_closed_is_refused(replay: ReplayFn) -> None:
    res = replay(table_trace({"t": 0.5, "bet": "red", "box": 1, "amount": 10}))
    assert refusal(res)["code"] == "bet_refused"
    assert res.of("bet") == []


@pytest.mark.parametrize("action", ["open_bets", "close_table"])
def test_table_inputs_during_a_spin_are_refused(replay: ReplayFn, action: str) -> None:
    bet = {"t": 0.5, "bet": "straight", "box": 1, "amount": 10, "numbers": ["17"]}
    tb, spin = one_spin(pocket=8, bets=[bet])
    tb.inp(spin.launch + 4.0, action)
    res = replay(tb)
    alarm = refusal(res, input_seq(res, action))
    assert action in alarm["message"]
    # The spin is played out (index 8 of the single-zero wheel is 17) and its bet settled
    # on its result, once.
    assert res.outcome()["number"] == "17"
    assert [(s["outcome"], s["payout"]) for s in res.of("settlement")] == [("win", 350)]


def test_input_of_another_game_is_refused(replay: ReplayFn) -> None:
    res = replay(table_trace({"t": 0.1, "input": "open_bets"},
                             {"t": 0.5, "input": "five_choice", "box": 1, "choice": "draw"}))
    assert "five_choice" in refusal(res, input_seq(res, "five_choice"))["message"]


def test_ball_launched_while_closed_starts_no_spin(replay: ReplayFn) -> None:
    tb, _ = one_spin(open_at=None, pocket=8, no_more_bets=False)
    res = replay(tb)
    assert res.of("spin_start") == [] and res.outcomes == []
    assert len(res.alarms()) == 1  # said once, not at every ball pass


def test_round_goes_round(replay: ReplayFn) -> None:
    # open → ball in play → no more bets → result → settled → open again.
    tb, _ = one_spin(pocket=8)
    assert states(replay(tb)) == ["bets_open", "ball_in_play", "no_more_bets", "result",
                                  "settled", "bets_open"]


# -- limits changes that are refused ---------------------------------------------------
@pytest.mark.parametrize("args", [{"min_bet": 0, "max_bet": 500}, {"min_bet": 600, "max_bet": 500},
                                  {"min_bet": 5}, {"min_bet": 5.5, "max_bet": 500},
                                  {"min_bet": 1, "max_bet": 10**300}])
def test_bad_limits_change_is_refused(replay: ReplayFn, args: dict[str, Any]) -> None:
    res = replay(table_trace({"t": 0.1, "input": "open_bets"},
                             {"t": 0.5, "input": "set_limits", **args},
                             {"t": 1.0, "bet": "red", "box": 1, "amount": 1000}))
    refusal(res, input_seq(res, "set_limits"))
    assert accepted_amounts(res, 0) == [1000]  # the old limits hold


@pytest.mark.parametrize("max_bet", [10**9 + 1, 10**300])
def test_art16_set_limits_beyond_the_configs_bound_is_refused(replay: ReplayFn,
                                                              max_bet: int) -> None:
    # The config's [limits] take at most 10^9 chips; a dealer's change is bounded the same.
    res = replay(table_trace({"t": 0.05, "input": "set_limits", "min_bet": 1,
                              "max_bet": max_bet},
                             {"t": 0.1, "input": "open_bets"},
                             {"t": 1.0, "bet": "red", "box": 1, "amount": 1001}))
    assert res.rc == 0
    [alarm] = res.alarms("input_refused")
    assert "1000000000" in alarm["message"] and "set_limits" in alarm["message"]
    assert len(alarm["message"]) < 300  # one readable line, not 300 digits
    assert res.of("config_change") == []
    assert accepted_amounts(res, 0) == []  # 1-1000 still in force


# -- seats (boxes) ----------------------------------------------------------------------
@pytest.mark.parametrize(("boxes", "box", "accepted"), [
    (None, 8, True), (None, 9, False), (None, 99, False), (4, 4, True), (4, 5, False),
    (12, 12, True)])
def test_box_outside_the_tables_seats_is_refused(replay: ReplayFn, tmp_path: Path,
                                                boxes: int | None, box: int,
                                                accepted: bool) -> None:
    # The table's seats come from the config ([roulette] boxes, default 8).
    config = None
    if boxes is not None:
        text = (REPO / "controller/data/default.toml").read_text()
        assert text.count("\nboxes = 8 ") == 1
        config = str(tmp_path / "table.toml")
        Path(config).write_text(text.replace("\nboxes = 8 ", f"\nboxes = {boxes} "))
    res = replay(table_trace({"t": 0.1, "input": "open_bets"},
                             {"t": 0.5, "bet": "red", "box": box, "amount": 10}), config=config)
    assert res.rc == 0
    assert bool(res.of("bet")) is accepted
    if not accepted:
        alarm = refusal(res)
        assert alarm["code"] == "bet_refused"
        assert f"box {box}" in alarm["message"] and f"seats {boxes or 8}" in alarm["message"]


# -- automatic no more bets ------------------------------------------------------------
def config_with(tmp_path: Path, section: str, line: str) -> str:
    """The embedded default config with ``line`` added to ``[section]``."""
    text = (REPO / "controller/data/default.toml").read_text()
    assert f"[{section}]\n" in text
    path = tmp_path / "table.toml"
    path.write_text(text.replace(f"[{section}]\n", f"[{section}]\n{line}\n"))
    return str(path)


def auto_nmb_trace() -> tuple[TraceBuilder, float]:
    """A spin with no dealer call; returns it and the ball_a activation that ends the first
    timed lap over 0.8 s (REAL_LAPS: 0.784 s then 0.887 s)."""
    tb, spin = one_spin(pocket=8, no_more_bets=False)
    laps = list(REAL_LAPS)
    first_long = next(i for i in range(1, len(laps)) if laps[i] > 0.8)
    t = spin.ball_a[first_long]
    tb.bet(t - 0.05, "straight", 1, 10, numbers=["17"])
    tb.bet(t + 0.05, "straight", 2, 10, numbers=["17"])
    return tb, t


def test_auto_no_more_bets_on_a_slow_lap(replay: ReplayFn, tmp_path: Path) -> None:
    tb, t = auto_nmb_trace()
    res = replay(tb, config=config_with(tmp_path, "roulette", "auto_no_more_bets_lap_s = 0.8"))
    assert res.rc == 0
    called = [r for r in res.of("state") if r["to"] == "no_more_bets"]
    assert len(called) == 1 and called[0]["t"] == pytest.approx(t, abs=1e-6)
    assert [b["box"] for b in res.of("bet")] == [1]
    assert [a["code"] for a in res.alarms()] == ["bet_refused"]
    assert [(s["box"], s["outcome"], s["payout"]) for s in res.of("settlement")] == [
        (1, "win", 350)]


def test_no_auto_no_more_bets_by_default(replay: ReplayFn) -> None:
    tb, _ = auto_nmb_trace()
    res = replay(tb)
    assert [b["box"] for b in res.of("bet")] == [1, 2]
    assert "no_more_bets" not in states(res)
