"""Around seed 001 Art. 12: what is *not* an invalid throw, though a sensor or the ball's
way into its pocket may make it look so, through the whole controller.

A sensor fault that the other sensor or the physics corrects (CONTRACT §5) gives the true
result and a ``sensor_fault`` alarm naming the input, never (b), (f) or (g); the winning
pocket is confirmed by two equal consecutive readings, and a reading may come before the
drop timeout (CONTRACT §1). Traces are built from the CONTRACT §1 geometry
(tests/conftest.py) and replayed in virtual time. Art. 12's own tests are seed 001's, in
tests/articles/test_seed_001_roulette*.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import ORDERS, REAL_PERIOD, SPIN_BETS, Replay, ReplayFn, Rotor, one_spin, spin_result


def sensor_faults(res: Replay, name: str) -> list[dict[str, Any]]:
    """The ``sensor_fault`` alarms that name input ``name`` (CONTRACT §5)."""
    return [a for a in res.alarms("sensor_fault") if a["message"].startswith(name)]


def flip_one_revolution(rotor: Rotor, k: int) -> Rotor:
    """The same rotor, its revolution k read the other way round (rotor_b on the wrong side
    of rotor_a): the direction flips and flips back."""
    dirs = list(rotor.dirs)
    dirs[k] = "ccw" if dirs[k] == "cw" else "cw"
    return Rotor(rotor.t0, rotor.periods, dirs)


# -- the winning pocket's readings (CONTRACT §1) -----------------------------------------
def test_art12c_ball_read_before_the_drop_timeout(replay: ReplayFn) -> None:
    # The ball falls and is read in its pocket before 1.5 × the last lap has passed with no
    # ball_a: the reading itself shows the ball left the track.
    tb, spin = one_spin(pocket=17, settle_after_drop=-1.5)
    assert spin.reads[0] < spin.drop
    out = spin_result(replay(tb), spin.number or "")
    assert out["ball_revolutions"] == len(spin.ball_a)


def test_art12c_ball_hopping_to_the_next_pocket_gives_where_it_rests(replay: ReplayFn) -> None:
    # Read once in pocket 10, then twice in pocket 11: only the two equal consecutive
    # readings confirm a result (CONTRACT §1).
    tb, spin = one_spin(pocket=None, first_read=0.0)
    hop = spin.rotor.pocket_times(10, tb.n, spin.drop + 1.0, 1)
    rest = spin.rotor.pocket_times(11, tb.n, hop[0] + 1.0, 2)
    assert rest[0] - hop[0] < REAL_PERIOD
    tb.pocket(hop + rest, REAL_PERIOD)
    spin_result(replay(tb), ORDERS["single_zero"][11])


# -- rotor sensor faults that are not (b), (f) or (g) (CONTRACT §5) ----------------------
@pytest.mark.parametrize("rotor_dir", ["cw", "ccw"])
def test_art12f_rotor_b_missing_for_a_revolution_is_a_sensor_fault(replay: ReplayFn,
                                                                   rotor_dir: str) -> None:
    # CONTRACT §5: rotor_a measured the revolution whole at the usual period, so the rotor
    # turned on the same way; rotor_b missed one pass. Corrected: the spin stands.
    tb, spin = one_spin(rotor_dir=rotor_dir, bets=SPIN_BETS)
    rotor = spin.rotor
    # Revolution 2 runs while the ball is on the track; its rotor_b pulse is missing.
    assert spin.launch < rotor.a[2] < rotor.a[3] < spin.ball_a[-1]
    tb.remove("rotor_a", "rotor_b").add(*rotor.events(drop_b=[2]))
    res = replay(tb)
    out = spin_result(res, spin.number or "")
    assert out["rotor_direction"] == rotor_dir
    assert sensor_faults(res, "rotor_b")


@pytest.mark.parametrize("rotor_dir", ["cw", "ccw"])
def test_art12f_one_revolution_read_reversed_at_steady_speed_is_a_sensor_fault(
        replay: ReplayFn, rotor_dir: str) -> None:
    # 20 rpm: five revolutions while the ball is in play, one of them read reversed. A rotor
    # cannot reverse without slowing down, which rotor_a would show: rotor_b lied (§5).
    tb, spin = one_spin(rotor_dir=rotor_dir, periods=(3.0,), bets=SPIN_BETS)
    assert spin.launch < spin.rotor.a[2] < spin.rotor.a[3] < spin.ball_a[-1]
    tb.remove("rotor_a", "rotor_b").add(*flip_one_revolution(spin.rotor, 2).events())
    res = replay(tb)
    out = spin_result(res, spin.number or "")
    assert out["rotor_direction"] == rotor_dir
    assert sensor_faults(res, "rotor_b")


@pytest.mark.parametrize("rotor_dir", ["cw", "ccw"])
def test_art12f_one_reversed_revolution_is_not_same_direction(replay: ReplayFn,
                                                              rotor_dir: str) -> None:
    # 11 rpm: the rotor turned rotor_dir for the two revolutions before the launch and the
    # one the ball was launched in; only the faulty revolution reads the ball's direction.
    tb, spin = one_spin(rotor_dir=rotor_dir)
    assert spin.launch < spin.rotor.a[2] < spin.rotor.a[3] < spin.ball_a[-1]
    tb.remove("rotor_a", "rotor_b").add(*flip_one_revolution(spin.rotor, 2).events())
    res = replay(tb)
    assert "same_direction" not in res.outcome().get("reasons", [])
    spin_result(res, spin.number or "")


def test_art12fg_rotor_a_missed_once_is_a_sensor_fault(replay: ReplayFn) -> None:
    # rotor_b fires twice, one period apart, while the rotor_a "period" doubles: the rotor
    # turned on at its speed and rotor_a missed a pass (CONTRACT §5), not (f) nor (g).
    tb, spin = one_spin(bets=SPIN_BETS)
    assert spin.launch < spin.rotor.a[2] < spin.ball_a[-1]
    tb.remove("rotor_a", "rotor_b").add(*spin.rotor.events(drop_a=[2]))
    res = replay(tb)
    spin_result(res, spin.number or "")
    assert sensor_faults(res, "rotor_a")
