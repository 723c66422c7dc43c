"""Seed 001 Art. 12 for a wheel that reports over serial (issue 12), through the whole
controller (``table-controller replay`` of status-line traces).

Named per tests/articles/README.md (``test_art_12a_...``): these are the Art. 12 tests of
the serial wheel source; the GPIO wheel's are in test_seed_001_roulette.py. Every trace is
written by tests/wheel_lines.py from the issue's protocol; every expected verdict comes from
the seed's text and RULES.md §1, quoted where it helps:

- (a) "Cuando la bolita no ha dado el minimo de vueltas (3)": from the extended lines' ball
  revolutions ``RR``; without them only the wheel's void-game flag 8 says so, and it names
  no article: the spin is held for a person (CONTRACT §5).
- (b) "Cuando la bolita gira en el mismo sentido de la Ruleta": the wheel's flag 2, or the
  extended ball direction ``B`` equal to the rotor's ``D``.
- (c) the ball suspended: a status line does not say when the ball left the track, so the
  wait of 6 rotor revolutions cannot be counted: held, never declared.
- (d), (e): the dealer or inspector.
- (f) "desperfecto mecanico u otro motivo que impida su normal revolucion": flag 4, a rotor
  below ``min_rotor_rpm`` (5) or turning the other way while the ball is in play.
- (g) "Cuando alguien detenga el giro del Disco o Plato": the rotor at speed 0 in play.
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import Replay, ReplayFn
from wheel_lines import SERIAL_CONFIG, WheelScript

BETS = ({"bet": "straight", "box": 1, "amount": 10, "numbers": ["32"]},
        {"bet": "red", "box": 2, "amount": 20})


def run(replay: ReplayFn, ws: WheelScript) -> Replay:
    res = replay(ws.events(), config=SERIAL_CONFIG)
    assert res.rc == 0, res.stderr
    return res


def with_bets(**kw: Any) -> WheelScript:
    ws = WheelScript(**kw)
    for b in BETS:
        ws.bet(str(b["bet"]), int(b["box"]), int(b["amount"]),
               **({"numbers": b["numbers"]} if "numbers" in b else {}))
    return ws


def invalid(res: Replay) -> dict[str, Any]:
    out = res.outcome()
    assert out["type"] == "spin_invalid", out
    return out


def returned(res: Replay) -> bool:
    """Every bet settled once as a push (RULES.md §1: an invalid throw's bets return)."""
    placed = sorted((b["box"], b["kind"]) for b in res.of("bet"))
    pushes = sorted((s["box"], s["kind"]) for s in res.of("settlement")
                    if s["outcome"] == "push" and s["payout"] == 0)
    return bool(placed) and placed == pushes


def held(res: Replay) -> dict[str, Any]:
    found = res.of("spin_held")
    assert len(found) == 1 and not res.outcomes, (found, res.outcomes)
    assert not res.of("settlement")  # CONTRACT §5: no settlement until a person decides
    return found[0]


# -- Art. 12 as a whole: the valid throw --------------------------------------------------
def test_art_12_serial_wheel_result_is_the_number_of_the_first_state_5_line(
        replay: ReplayFn) -> None:
    res = run(replay, with_bets().spin("32"))
    out = res.outcome()
    assert (out["type"], out["number"], out["spin"]) == ("spin_result", "32", 1)
    assert out["rotor_direction"] == "cw" and out["rotor_rpm"] == pytest.approx(16.0)
    # Art. 13: a straight pays 35 to 1; 32 is red (1 to 1).
    wins = sorted((s["box"], s["outcome"], s["payout"]) for s in res.of("settlement"))
    assert wins == [(1, "win", 350), (2, "win", 20)]


def test_art_12_serial_wheel_nn_before_state_5_is_the_previous_number(
        replay: ReplayFn) -> None:
    # NN shows 33 (the last game's) through states 1-4; the spin's number is state 5's.
    ws = WheelScript(number="33").spin("7", bare=False)
    assert ws.number == "7"
    out = run(replay, ws).outcome()
    assert (out["type"], out["number"]) == ("spin_result", "7")


# -- (a) ------------------------------------------------------------------------------
def test_art_12a_extended_wheel_two_revolutions_are_fewer_than_the_minimum_of_3(
        replay: ReplayFn) -> None:
    res = run(replay, with_bets(extended=True).spin("32", rr=2, ball=1))
    out = invalid(res)
    assert (out["reason"], out["ball_revolutions"]) == ("too_few_revolutions", 2)
    assert returned(res)


@pytest.mark.parametrize(("revolutions", "valid"), [(3, False), (4, True)])
def test_art_12a_extended_wheel_a_jurisdiction_minimum_of_4(
        replay: ReplayFn, revolutions: int, valid: bool) -> None:
    ws = WheelScript(extended=True, min_ball_revolutions=4).spin("32", rr=revolutions, ball=1)
    out = run(replay, ws).outcome()
    assert out["type"] == ("spin_result" if valid else "spin_invalid")
    assert out["ball_revolutions"] == revolutions


def test_art_12a_extended_wheel_revolutions_enough_give_the_result(replay: ReplayFn) -> None:
    out = run(replay, WheelScript(extended=True).spin("32", rr=11, ball=1)).outcome()
    assert (out["type"], out["ball_revolutions"], out["ball_direction"]) == (
        "spin_result", 11, "ccw")


def test_art_12a_without_extended_fields_the_void_game_flag_holds_the_spin(
        replay: ReplayFn) -> None:
    # Flag 8 (a void game or failed launch) names no article: a person gives the reason.
    ws = with_bets().spin("32", flags4=8, flags5=8)
    res = run(replay, ws)
    rec = held(res)
    assert rec["reason"] == "sensor_fault" and "wheel_flag_8" in rec["details"]
    ws.inp("void", reason="wheel_malfunction", by="inspector")
    res = run(replay, ws)
    out = invalid(res)
    assert (out["reason"], out["decided_by"]) == ("wheel_malfunction", "inspector")
    assert returned(res)


def ext_play(rr: list[int | None], b: list[int | None], last: tuple[int | None, int | None],
             plain_5: bool = False) -> WheelScript:
    """An extended wheel's spin line by line: ``rr[i]``, ``b[i]`` for each line of play
    (three in state 3, the rest in state 4), then the bare number and state 5 (17) with
    ``last`` as its RR and B (a plain line with ``plain_5``); D 0 (clockwise) throughout."""
    ws = with_bets(extended=True).status(2, 2)
    for i, (r, d) in enumerate(zip(rr, b, strict=True)):
        ws.status(3 if i < 3 else 4, 1, rr=r, ball=d)
    ws.line("17")
    if plain_5:
        ws.extended = False
    return ws.status(5, 2, number="17", rr=last[0], ball=last[1])


def test_art_12a_extended_wheel_a_count_it_then_blanks_is_no_count(replay: ReplayFn) -> None:
    # 1, 1, 1, 2, 2 revolutions, then state 5 with RR blank: the ball may have gone on;
    # its count is not known, so (a) can be neither found nor ruled out: held.
    rec = held(run(replay, ext_play([1, 1, 1, 2, 2], [1] * 5, (None, 1))))
    assert rec["candidate"] == "17" and "wheel_revolutions" in rec["details"]


def test_art_12a_extended_wheel_a_plain_state_5_after_counts_is_no_count(
        replay: ReplayFn) -> None:
    rec = held(run(replay, ext_play([1, 1, 1, 2, 2], [1] * 5, (None, None), plain_5=True)))
    assert "wheel_revolutions" in rec["details"]


def test_art_12a_extended_wheel_a_count_that_goes_down_is_held(replay: ReplayFn) -> None:
    rec = held(run(replay, ext_play([1, 2, 3, 5, 2], [1] * 5, (9, 1))))
    assert "wheel_revolutions" in rec["details"]


def test_art_12a_extended_wheel_that_never_counts_is_held(replay: ReplayFn) -> None:
    rec = held(run(replay, ext_play([None] * 5, [1] * 5, (None, 1))))
    assert "wheel_revolutions" in rec["details"]


def test_art_12a_extended_wheel_the_count_of_state_5_decides(replay: ReplayFn) -> None:
    # The last report with a count is state 5's: 2, fewer than 3.
    out = invalid(run(replay, ext_play([0, 1, 1, 2, 2], [None, 1, 1, 1, 1], (2, 1))))
    assert (out["reason"], out["ball_revolutions"]) == ("too_few_revolutions", 2)


# -- (b) ------------------------------------------------------------------------------
def test_art_12b_extended_wheel_a_ball_direction_that_changes_is_held(
        replay: ReplayFn) -> None:
    # B 0 (with the rotor, D 0) after one revolution, then 1: a ball does not reverse on
    # the track; which report is wrong is not known: neither (b) nor a result.
    rec = held(run(replay, ext_play([1, 1, 5, 5, 8], [0, 0, 1, 1, 1], (12, 1))))
    assert rec["candidate"] == "17" and "wheel_ball_direction" in rec["details"]


def test_art_12b_extended_wheel_same_direction_at_one_report_is_same_direction(
        replay: ReplayFn) -> None:
    # B with the rotor at the reports where it is given, blank at state 5.
    out = invalid(run(replay, ext_play([1, 2, 4, 6, 8], [None, 0, 0, None, None], (10, None))))
    assert out["reasons"] == ["same_direction"]


def test_art_12b_extended_wheel_that_never_gives_the_direction_is_held(
        replay: ReplayFn) -> None:
    # 12 revolutions and never a direction: (b) cannot be judged.
    rec = held(run(replay, ext_play([4, 4, 8, 8, 10], [None] * 5, (12, None))))
    assert "wheel_ball_direction" in rec["details"]


@pytest.mark.parametrize("state", [3, 4])
def test_art_12b_the_wheels_flag_2_in_play_is_same_direction(replay: ReplayFn,
                                                            state: int) -> None:
    ws = with_bets().spin("32", **{f"flags{state}": 2})
    res = run(replay, ws)
    out = invalid(res)
    assert out["reasons"] == ["same_direction"]
    assert returned(res)


@pytest.mark.parametrize(("d", "b"), [(0, 0), (1, 1)])
def test_art_12b_extended_ball_direction_equal_to_the_rotors_is_same_direction(
        replay: ReplayFn, d: int, b: int) -> None:
    out = invalid(run(replay, WheelScript(extended=True, direction=d).spin("32", rr=9, ball=b)))
    assert out["reasons"] == ["same_direction"]
    assert out["ball_direction"] == out["rotor_direction"] == ("cw" if d == 0 else "ccw")


def test_art_12b_a_warning_before_the_launch_does_not_void_the_next_spin(
        replay: ReplayFn) -> None:
    # A failed launch: flag 8 (and 2) in state 2, the wheel relaunches with no flag.
    ws = WheelScript().status(2, 3, flags=8).status(2, 2, flags=2).spin("32")
    res = run(replay, ws)
    assert res.outcome()["number"] == "32"
    assert len(res.alarms("wheel_warning")) == 2  # each flag raised, once, outside play


# -- (c) ------------------------------------------------------------------------------
def test_art_12c_a_ball_that_never_gives_a_number_is_held_never_declared_suspended(
        replay: ReplayFn) -> None:
    # The ball stays out of a pocket; the dealer takes it out (flag 1); a new game starts.
    ws = with_bets().spin(None, next_game=False).status(4, 20).status(4, 2, flags=1)
    ws.status(1, 2)
    res = run(replay, ws)
    rec = held(res)
    assert rec["candidate"] is None and "wheel_flag_1" in rec["details"]
    assert not any(r.get("reason") == "ball_suspended" for r in res.records)


# -- (d), (e) ---------------------------------------------------------------------------
@pytest.mark.parametrize("reason", ["ball_out_of_wheel", "foreign_object"])
def test_art_12de_the_dealers_void_in_play_is_final(replay: ReplayFn, reason: str) -> None:
    ws = with_bets().status(2, 2).status(3, 3).inp("void", reason=reason).status(3, 1)
    ws.status(4, 3).line("32").status(5, 3, number="32").status(1, 1, game=95)
    res = run(replay, ws)
    out = invalid(res)
    assert out["reasons"] == [reason]
    assert returned(res)
    assert not res.alarms("wheel_impossible")  # the rest of that ball is no surprise


# -- (f) ------------------------------------------------------------------------------
def test_art_12f_the_wheels_flag_4_in_play_is_a_wheel_malfunction(replay: ReplayFn) -> None:
    out = invalid(run(replay, with_bets().spin("32", flags4=4, flags5=4)))
    assert out["reasons"] == ["wheel_malfunction"]


def test_art_12f_a_rotor_below_5_rpm_in_play_is_a_wheel_malfunction(replay: ReplayFn) -> None:
    # SSS is tenths of rpm: 045 is 4.5 rpm, below min_rotor_rpm = 5.
    ws = WheelScript(speed=45).spin("32")
    out = invalid(run(replay, ws))
    assert out["reasons"] == ["wheel_malfunction"]
    assert "4.50 rpm" in out["details"]["wheel_malfunction"]


def test_art_12f_a_rotor_at_5_rpm_is_not_too_slow(replay: ReplayFn) -> None:
    assert run(replay, WheelScript(speed=50).spin("32")).outcome()["type"] == "spin_result"


def test_art_12f_the_rotor_turning_the_other_way_in_play_is_a_wheel_malfunction(
        replay: ReplayFn) -> None:
    ws = WheelScript().status(2, 2).status(3, 2).status(3, 2, direction=1).status(4, 3)
    ws.line("32").status(5, 3, number="32")
    assert invalid(run(replay, ws))["reasons"] == ["wheel_malfunction"]


def test_art_12f_a_fault_flag_up_while_idle_voids_nothing(replay: ReplayFn) -> None:
    ws = WheelScript(number=None, game=1, speed=0)
    ws.status(6, 3000, flags=4).status(2, 2, speed=160)
    res = run(replay, ws.spin("32"))
    assert res.outcome()["number"] == "32"
    assert len(res.alarms("wheel_warning")) == 1  # on the change, not on every line


def test_art_12f_a_fault_flag_up_since_before_the_launch_holds_the_spin(
        replay: ReplayFn) -> None:
    # Flag 4 up through the idle lines, bets open and the whole play: the wheel still
    # reports its fault, but not that this spin's rotor was impeded (f): never a plain
    # result, held for a person.
    ws = with_bets(number=None, game=1, speed=0).status(6, 20, flags=4)
    ws.status(2, 3, flags=4, speed=120).status(3, 3, flags=4).status(4, 3, flags=4)
    ws.line("17").status(5, 1, number="17", flags=4).status(1, 2, game=2, flags=4)
    rec = held(run(replay, ws))
    assert rec["candidate"] == "17" and "before the launch" in rec["details"]["wheel_flag_4"]


def test_art_12f_a_fault_flag_lowered_then_raised_in_play_is_a_wheel_malfunction(
        replay: ReplayFn) -> None:
    ws = with_bets().status(2, 3, flags=4).status(3, 1, flags=4).status(3, 2)
    ws.status(4, 3, flags=4).line("17").status(5, 1, number="17", flags=4)
    assert invalid(run(replay, ws))["reasons"] == ["wheel_malfunction"]


def test_art_12_a_failed_launch_flag_kept_up_into_the_relaunch_holds_the_spin(
        replay: ReplayFn) -> None:
    # Flag 8 (void game or failed launch) from state 2 on, never lowered: is it the failed
    # launch's or this ball's? Not known: held, with the reason.
    ws = with_bets().status(2, 3, flags=8).status(3, 3, flags=8).status(4, 3, flags=8)
    ws.line("17").status(5, 1, number="17", flags=8).status(1, 2, game=95)
    rec = held(run(replay, ws))
    assert "before the launch" in rec["details"]["wheel_flag_8"]


# -- (g) ------------------------------------------------------------------------------
def test_art_12g_the_rotor_at_speed_0_in_play_is_wheel_stopped(replay: ReplayFn) -> None:
    # Braked by hand: 16 rpm, 4, 0.5, 0. The readings below 5 rpm are that stop, not (f).
    ws = with_bets().status(2, 2).status(3, 2).status(3, 1, speed=40).status(4, 1, speed=5)
    ws.status(4, 2, speed=0).line("32").status(5, 2, number="32")
    res = run(replay, ws)
    out = invalid(res)
    assert out["reasons"] == ["wheel_stopped"]
    assert returned(res)


def test_art_12g_reversing_the_rotor_at_speed_0_before_the_launch_voids_nothing(
        replay: ReplayFn) -> None:
    # The croupier stops the rotor in state 2; D flips at speed 000; spun the other way.
    ws = WheelScript().status(2, 2, speed=40).status(2, 2, speed=0)
    ws.status(2, 2, direction=1).status(2, 2, speed=150)
    out = run(replay, ws.spin("32")).outcome()
    assert (out["type"], out["rotor_direction"]) == ("spin_result", "ccw")


# -- held spins (CONTRACT §5): flags that name no article ------------------------------
def test_art_12_flag_1_holds_the_spin_until_a_person_gives_its_number(
        replay: ReplayFn) -> None:
    ws = with_bets().spin("32", flags4=1, next_game=False)
    rec = held(run(replay, ws))
    assert rec["candidate"] == "32" and "wheel_flag_1" in rec["details"]
    ws.inp("confirm_result", number="32", by="inspector")
    res = run(replay, ws)
    out = res.outcome()
    assert (out["type"], out["number"], out["decided_by"]) == ("spin_result", "32", "inspector")
    assert sorted(s["payout"] for s in res.of("settlement")) == [20, 350]


def test_art_12_a_finding_voids_the_spin_even_with_a_flag_that_holds(replay: ReplayFn) -> None:
    # Flag 2 names Art. 12 (b): certain; flag 8 alone would hold it.
    out = invalid(run(replay, with_bets().spin("32", flags3=2, flags4=8)))
    assert out["reasons"] == ["same_direction"] and "wheel_flag_8" in out["uncertain"]
