"""The serial wheel's link (issue 12; CONTRACT §5): what a gap in its lines, a backlog
delivered at once, and a wheel that never talks mean for the spin and the table.

The wheel repeats its status line about every half second (the issue). A line that comes
after a longer gap, and the lines delivered at once right after it (a backlog), happened
at unknown times in that gap: a launch or a "no va más" among them is not known to have
come after the bets taken meanwhile, and what the wheel reported in the gap may be lost.
Expected verdicts follow from that and CONTRACT §5 (hold, never guess), not from the code.
Traces are written by tests/wheel_lines.py from the issue's protocol.
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import Replay, ReplayFn
from wheel_lines import SERIAL_CONFIG, WheelScript, status_text


def run(replay: ReplayFn, ws: WheelScript | list[dict[str, Any]]) -> Replay:
    res = replay(ws.events() if isinstance(ws, WheelScript) else ws, config=SERIAL_CONFIG)
    assert res.rc == 0, res.stderr
    return res


def lines(*states: int, number: str = "  ", result: str = "17", game: int = 100) -> str:
    """Status lines of the given states as one read (CR each): NN ``number`` until state 5,
    then ``result``; the bare number just before state 5."""
    out = []
    for s in states:
        if s == 5:
            out.append(result.rjust(2))
        out.append(status_text(s, game, result if s == 5 else number.strip() or None, 0,
                               120, 0))
    return "".join(x + "\r" for x in out)


def held_only(res: Replay) -> dict[str, Any]:
    """The one spin was held for the inspector (CONTRACT §5): no verdict, no settlement."""
    found = res.of("spin_held")
    assert len(found) == 1 and not res.outcomes, (found, res.outcomes)
    assert not res.of("settlement")
    return found[0]


# -- a backlog after a gap shorter than wheel_silence_s (adversary item 1) -------------
def test_a_launch_in_a_backlog_after_a_short_gap_holds_the_spin(replay: ReplayFn) -> None:
    # The last line at 2.2 s (bets open), a straight bet at 6.2 s, then at 6.6 s one read
    # delivers the launch, "no va más", the number and state 5: they happened at unknown
    # times in the 4.4 s gap (under the 5 s silence limit), so the bet may be late.
    ws = WheelScript(game=100, speed=120, number=None).status(2, 5)
    ws.wait(3.5).bet("straight", 3, 100, numbers=["17"])
    ws.raw(lines(2, 3, 3, 3, 3, 4, 4, 4, 5), t=6.6)
    ws.t = 7.1
    ws.status(1, 3, number="17", game=101)
    res = run(replay, ws)
    assert len(res.of("spin_start")) == 1
    rec = held_only(res)
    assert rec["candidate"] == "17" and "wheel_link" in rec["details"]
    assert "2.200" in rec["details"]["wheel_link"]  # the last line heard before the gap


def test_a_gap_while_the_ball_is_in_play_holds_the_spin(replay: ReplayFn) -> None:
    # Launched at the wheel's pace; then nothing from 2.7 s to 7.5 s (4.8 s, a bet in it),
    # and the rest of the ball (no va más, the number) in one read.
    ws = WheelScript(game=100, speed=120, number=None).bet("straight", 1, 10, numbers=["17"])
    ws.status(2, 3).status(3, 3)
    ws.wait(2.5).bet("straight", 3, 100, numbers=["17"])
    ws.raw(lines(4, 4, 4, 5), t=7.5)
    ws.t = 8.0
    ws.status(1, 3, number="17", game=101)
    rec = held_only(run(replay, ws))
    assert rec["candidate"] == "17" and "wheel_link" in rec["details"]


def test_a_gap_in_play_with_no_backlog_after_it_holds_the_spin(replay: ReplayFn) -> None:
    # 2.5 s with no line in state 3, then the wheel goes on at its pace: what it reported
    # in the gap (a flag raised and lowered) is not known.
    ws = WheelScript().status(2, 2).status(3, 2).wait(2.0).status(3, 2).status(4, 3)
    ws.line("32").status(5, 2, number="32")
    rec = held_only(run(replay, ws))
    assert rec["candidate"] == "32" and "wheel_link" in rec["details"]


def test_a_gap_before_the_launch_line_holds_the_spin(replay: ReplayFn) -> None:
    # Bets open on the wheel, 3 s with no line, then state 3: the ball was launched at an
    # unknown moment of those 3 s.
    ws = WheelScript().status(2, 2).wait(2.5).status(3, 3).status(4, 3).line("32")
    rec = held_only(run(replay, ws.status(5, 2, number="32")))
    assert "wheel_link" in rec["details"]


def test_lines_at_the_wheels_pace_with_one_lost_give_the_result(replay: ReplayFn) -> None:
    # One line lost in play (1.0 s between two lines) is within wheel_burst_gap_s (1.5 s).
    ws = WheelScript().status(2, 2).status(3, 2).wait(0.5).status(3, 1).status(4, 3)
    out = run(replay, ws.line("32").status(5, 2, number="32")).outcome()
    assert (out["type"], out["number"]) == ("spin_result", "32")


def test_the_gap_that_holds_a_spin_is_configured(replay: ReplayFn) -> None:
    # The same trace with wheel_burst_gap_s = 0.8: the lost line is a gap.
    ws = WheelScript(wheel_burst_gap_s=0.8).status(2, 2).status(3, 2).wait(0.5).status(3, 1)
    ws.status(4, 3).line("32").status(5, 2, number="32")
    assert "wheel_link" in held_only(run(replay, ws))["details"]


def test_a_backlog_outside_play_changes_nothing(replay: ReplayFn) -> None:
    # Lines held back while the wheel is idle, then a spin at the wheel's pace.
    ws = WheelScript().status(2, 1).wait(3.0)
    ws.raw("".join(status_text(2, 94, "33", 0, 160, 0) + "\r" for _ in range(6)))
    ws.t += 0.5
    out = run(replay, ws.spin("32")).outcome()
    assert (out["type"], out["number"]) == ("spin_result", "32")


# -- a wheel that never talks, or talks garbage (adversary item 11) --------------------
def test_a_wheel_that_never_talks_is_disconnected_from_the_tables_start(
        replay: ReplayFn) -> None:
    # No port-open event in a replay: the first input starts the clock of the silence.
    trace = [{"t": 0, "meta": {"table": "roulette", "wheel_source": "serial"}},
             {"t": 0.01, "input": "open_bets"},
             {"t": 30.01, "bet": "red", "box": 1, "amount": 10}]
    res = run(replay, trace)
    down = res.alarms("wheel_disconnected")
    assert [a["t"] for a in down] == [pytest.approx(5.01)]
    assert "no line from the wheel since the table started at 0.010 s" in down[0]["message"]


def test_garbage_is_not_the_wheel_talking_and_the_alarm_says_so(replay: ReplayFn) -> None:
    ws = WheelScript().status(2, 2)
    for _ in range(12):
        ws.line("garbage")
    res = run(replay, ws)
    down = res.alarms("wheel_disconnected")[0]
    assert down["t"] == pytest.approx(0.7 + 5.0)  # the last valid line + wheel_silence_s
    assert "no valid line from the wheel" in down["message"]
    assert "lines it could not use" in down["message"]
