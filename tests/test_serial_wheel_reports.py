"""What a serial wheel reports around its winning number (issue 12; CONTRACT §5): every bare
number must agree with state 5; what comes after a spin's state 5 and contradicts it is an
alarm naming the spin; a ball whose launch the table did not see is an alarm, and while it
runs the table takes no bets and does not open them.

The issue's protocol: the wheel sends the bare winning number on a line of its own just
before state 5 (two characters, one digit padded with a space), ``NN`` is the previous
number in states 1-4 and the new one from state 5 on, and "a result is its first state-5
line". Expected outcomes follow from it and CONTRACT §5, not from the code. Traces are
written by tests/wheel_lines.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import Replay, ReplayFn, power_cut, run_replay, write_trace
from wheel_lines import SERIAL_CONFIG, WheelScript


def run(replay: ReplayFn, ws: WheelScript) -> Replay:
    res = replay(ws.events(), config=SERIAL_CONFIG)
    assert res.rc == 0, res.stderr
    return res


def played(**kw: Any) -> WheelScript:
    """Bets open, a straight on 17 (box 1), launch and no more bets: the number comes next."""
    ws = WheelScript(**kw).bet("straight", 1, 10, numbers=["17"])
    return ws.status(2, 2).status(3, 3).status(4, 3)


def held_only(res: Replay) -> dict[str, Any]:
    found = res.of("spin_held")
    assert len(found) == 1 and not res.outcomes, (found, res.outcomes)
    assert not res.of("settlement")
    return found[0]


def contradictions(res: Replay) -> list[str]:
    return [a["message"] for a in res.alarms("wheel_contradiction")]


# -- every bare number agrees with state 5 (adversary item 3) ---------------------------
def test_every_bare_number_line_must_agree_with_state_5(replay: ReplayFn) -> None:
    # 17, then 23, then state 5 with 23: the wheel said two numbers for one ball.
    ws = played().line("17").line("23").status(5, 2, number="23")
    rec = held_only(run(replay, ws))
    assert rec["candidates"] == ["17", "23"] and "'17'" in rec["details"]["wheel_number"]
    assert rec["candidate"] is None  # the lines disagree: no one number to point to


@pytest.mark.parametrize("text", ["37", "07", " 17", "1 7", "x7"])
def test_a_bare_number_line_that_is_no_pocket_holds_the_spin(replay: ReplayFn,
                                                              text: str) -> None:
    # Where the wheel sends the bare number (after no va más), a line that is not one.
    ws = played().line(text).status(5, 2, number="17")
    rec = held_only(run(replay, ws))
    assert rec["candidate"] == "17" and repr(text) in rec["details"]["wheel_number"]


def test_bare_numbers_that_agree_give_the_result(replay: ReplayFn) -> None:
    ws = played().line("17").line("17").status(5, 2, number="17")
    out = run(replay, ws).outcome()
    assert (out["type"], out["number"]) == ("spin_result", "17")


def test_a_padded_single_digit_bare_number_agrees(replay: ReplayFn) -> None:
    out = run(replay, played().line(" 7").status(5, 2, number="7")).outcome()
    assert (out["type"], out["number"]) == ("spin_result", "7")


# -- after the spin's first state-5 line (adversary item 6) ----------------------------
def test_a_second_state_5_with_another_number_is_an_alarm_naming_the_spin(
        replay: ReplayFn) -> None:
    res = run(replay, played().line("17").status(5, 1, number="17").status(5, 2,
                                                                           number="23"))
    out = res.outcome()
    assert (out["type"], out["number"]) == ("spin_result", "17")  # the first state 5
    [msg] = contradictions(res)  # once, though the line repeats
    assert "spin 1" in msg and "17" in msg and "23" in msg


def test_state_4_after_state_5_then_another_number_are_alarms(replay: ReplayFn) -> None:
    # 5 (17), 4, 4, 5 (23): state 4 with no state 3 before it, and another number.
    ws = played().line("17").status(5, 1, number="17").status(4, 2).status(5, 1, number="23")
    res = run(replay, ws)
    assert res.outcome()["number"] == "17"
    msgs = contradictions(res)
    assert len(msgs) == 2 and all("spin 1" in m for m in msgs)
    assert "state 4" in msgs[0] and "23" in msgs[1]


def test_a_flag_raised_after_state_5_is_an_alarm_naming_the_spin(replay: ReplayFn) -> None:
    ws = played().line("17").status(5, 1, number="17").status(5, 1, number="17", flags=8)
    ws.status(1, 3, game=95, flags=8)
    res = run(replay, ws)
    assert res.outcome()["number"] == "17"
    [msg] = contradictions(res)
    assert "spin 1" in msg and "flag 8" in msg


def test_a_bare_number_after_state_5_that_disagrees_is_an_alarm(replay: ReplayFn) -> None:
    # Two state-5 lines conclude it (no bare line before them); the bare line comes after.
    res = run(replay, played().status(5, 2, number="23").line("17").status(1, 1, game=95))
    assert res.outcome()["number"] == "23"
    [msg] = contradictions(res)
    assert "spin 1" in msg and "17" in msg


def test_the_next_games_last_number_must_be_the_spins(replay: ReplayFn) -> None:
    # NN in states 1-4 is the previous number: 23 after a state 5 with 17 contradicts it.
    ws = played().line("17").status(5, 2, number="17").status(1, 2, game=95, number="23")
    res = run(replay, ws)
    [msg] = contradictions(res)
    assert "spin 1" in msg and "23" in msg


def test_what_follows_a_result_as_the_issue_describes_is_no_alarm(replay: ReplayFn) -> None:
    ws = played().line("17").status(5, 3, number="17").line("17").status(1, 2, game=95)
    ws.spin("4")
    res = run(replay, ws)
    assert [o["number"] for o in res.outcomes] == ["17", "4"] and not contradictions(res)


def test_the_number_of_a_ball_whose_spin_was_held_before_it_is_an_alarm(
        replay: ReplayFn) -> None:
    # The link went silent in play (held); the ball's state 5 afterwards is for the inspector.
    ws = WheelScript().status(2, 2).status(3, 3).wait(30.0).status(4, 2).line("32")
    ws.status(5, 2, number="32").status(1, 1, game=95)
    res = run(replay, ws)
    assert "wheel_link" in res.of("spin_held")[0]["details"]
    [late] = res.alarms("wheel_after_conclusion")
    assert "32" in late["message"] and "spin 1" in late["message"]


# -- a ball whose launch was not seen (adversary items 6, 12) ---------------------------
def test_a_ball_in_play_at_the_first_line_is_one_alarm(replay: ReplayFn) -> None:
    ws = WheelScript().status(4, 3).line("2").status(5, 3, number="2").status(1, 1)
    res = run(replay, ws.spin("3"))
    assert [o["number"] for o in res.outcomes] == ["3"]
    [unseen] = res.alarms("wheel_unseen_ball")
    assert "state 4" in unseen["message"]


def test_no_bets_while_a_ball_whose_launch_was_not_seen_runs(replay: ReplayFn) -> None:
    # Bets open on the table; the wheel's first line shows a ball already in the rim.
    ws = WheelScript().status(3, 2).bet("red", 1, 10).status(4, 2).bet("black", 2, 10)
    ws.line("5").status(5, 2, number="5").bet("red", 3, 10).status(1, 1, game=95)
    ws.spin("8", next_game=False)
    res = run(replay, ws)
    refused = res.alarms("bet_refused")
    assert [a["bet"]["box"] for a in refused] == [1, 2]
    assert all("launch" in a["message"] and "not seen" in a["message"] for a in refused)
    # Once the ball is at rest the bet is taken, and it rides on the next spin.
    assert [b["box"] for b in res.of("bet")] == [3]
    assert [(o["spin"], o["number"]) for o in res.outcomes] == [(1, "8")]


def test_after_a_restart_the_table_waits_for_the_unseen_ball(tmp_path: Path) -> None:
    db = tmp_path / "journal.sqlite"
    first = WheelScript().bet("straight", 1, 10, numbers=["17"]).status(2, 2).status(3, 2)
    assert run_replay(write_trace(tmp_path / "a.jsonl", first.events()), db,
                      "--config", SERIAL_CONFIG).rc == 0
    power_cut(db, 1.5)  # the controller stops with spin 1 in play
    # It comes back while the wheel's ball still runs: the dealer tries to open bets, before
    # the wheel's first line and while it shows the ball.
    ws = WheelScript(open_at=None)
    ws.t = 3.0
    ws.inp("open_bets").status(3, 1).inp("open_bets").status(4, 2).inp("open_bets").line("17")
    ws.status(5, 2, number="17").status(1, 1, game=95).inp("open_bets")
    ws.bet("red", 2, 10).spin("4", next_game=False)
    res = run_replay(write_trace(tmp_path / "b.jsonl", ws.events()), db, "--config",
                     SERIAL_CONFIG)
    assert res.rc == 0
    refused = [a["message"] for a in res.alarms("input_refused")]
    assert len(refused) == 3 and "since the restart" in refused[0]
    assert all("not seen" in m for m in refused[1:])
    assert [(o["spin"], o.get("number"), o.get("reason")) for o in res.outcomes] == [
        (1, None, "interrupted"), (2, "4", None)]
    assert [s["box"] for s in res.of("settlement") if s["game"] == 2] == [2]


def test_the_number_of_each_ball_the_table_took_no_spin_for_is_an_alarm(
        replay: ReplayFn) -> None:
    # The table stays closed while the wheel plays two balls (its bets do not follow the
    # wheel): neither is a spin, and each number the wheel gives is journaled as such.
    res = run(replay, WheelScript(open_at=None, bets_follow_wheel=False).spin("32")
              .spin("4"))
    assert not res.outcomes and not res.of("spin_start")
    msgs = [a["message"] for a in res.alarms("wheel_not_a_spin")]
    assert len(msgs) == 2 and "32" in msgs[0] and "4" in msgs[1]
