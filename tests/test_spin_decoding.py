"""Winning-number decoding (CONTRACT §1 "Winning pocket") through the whole controller.

For every pocket of both wheels and both rotor directions, a spin whose ball rests in
pocket i must give the number at index i of the wheel order of wheels.md. The ball's
pocket passes are placed by the geometry (conftest.Rotor.pocket_times), a quarter pocket
off centre as a resting ball lies, on a rotor whose periods jitter as the real series 0 of
real-rotor-revs.csv (5.269, 5.288, 5.171 s). One trace per wheel and direction holds a spin
for each pocket, with a straight bet on the expected number (Art. 13: 35 to 1).
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import (
    ORDERS,
    REAL_LAPS,
    SHARED,
    TRACES,
    Replay,
    ReplayFn,
    Rotor,
    TraceBuilder,
    drop_time,
    opposite,
    replayer,
)

REAL_ROTOR = (5.269, 5.288, 5.171)
CASES = [(w, d, i) for w in ORDERS for d in ("cw", "ccw") for i in range(len(ORDERS[w]))]


def every_pocket_trace(wheel: str, rotor_dir: str, offset: float = 0.25) -> TraceBuilder:
    """Spin k (from 1) rests in pocket k − 1; the next ball is thrown once it is settled."""
    tb = TraceBuilder(wheel)
    n = tb.n
    tb.inp(0.1, "open_bets")
    rotor = Rotor.turning(1.0, REAL_ROTOR, rotor_dir, until=1.0 + 40.0 * n)
    launch = rotor.a[1] + 0.3 * REAL_ROTOR[0]
    for i in range(n):
        tb.bet(launch - 0.4, "straight", 1, 10, numbers=[ORDERS[wheel][i]])
        ball_a = tb.ball(launch, REAL_LAPS, opposite(rotor_dir))
        tb.inp(launch + 3.0, "no_more_bets")
        reads = rotor.pocket_times(i, n, drop_time(ball_a) + 1.0, 2, offset)
        tb.pocket(reads, REAL_ROTOR[0])
        launch = reads[-1] + 1.5 * max(REAL_ROTOR)
    assert launch < rotor.a[-1]
    tb.add(*rotor.events())
    return tb


@pytest.fixture(scope="module")
def every_pocket(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Replay]:
    replay = replayer(tmp_path_factory.mktemp("decoding"))
    runs: dict[tuple[str, str], Replay] = {}
    for wheel in ORDERS:
        for direction in ("cw", "ccw"):
            res = replay(every_pocket_trace(wheel, direction))
            assert res.rc == 0
            runs[wheel, direction] = res
    return runs


@pytest.mark.parametrize(("wheel", "rotor_dir", "index"), CASES)
def test_pocket_decodes_to_the_wheel_order(every_pocket: dict[tuple[str, str], Replay],
                                           wheel: str, rotor_dir: str, index: int) -> None:
    res = every_pocket[wheel, rotor_dir]
    outcomes = res.outcomes
    assert len(outcomes) == len(ORDERS[wheel])
    out = outcomes[index]
    number = ORDERS[wheel][index]
    assert out["type"] == "spin_result", out
    assert out["spin"] == index + 1
    assert out["number"] == number
    assert out["ball_revolutions"] == len(REAL_LAPS)
    assert out["ball_direction"] == opposite(rotor_dir)
    assert out["rotor_direction"] == rotor_dir
    settled = [s for s in res.of("settlement") if s["game"] == index + 1]
    assert [(s["kind"], s["numbers"], s["outcome"], s["payout"]) for s in settled] == [
        ("straight", [number], "win", 350)]


@pytest.mark.parametrize("offset", [-0.45, 0.45])
def test_ball_off_centre_decodes_to_its_pocket(replay: ReplayFn, offset: float) -> None:
    # k = round(f·N): a ball up to half a pocket off its pocket's centre is still that pocket.
    for wheel, direction in (("single_zero", "ccw"), ("double_zero", "cw")):
        res = replay(every_pocket_trace(wheel, direction, offset))
        assert [o.get("number") for o in res.outcomes] == list(ORDERS[wheel])


def test_every_pocket_trace_has_no_alarm(every_pocket: dict[tuple[str, str], Replay]) -> None:
    for res in every_pocket.values():
        assert res.alarms() == []


# -- the example trace of ../shared/traces -------------------------------------------------
@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Replay:
    res = replayer(tmp_path_factory.mktemp("example"))(TRACES / "roulette-two-spins.jsonl")
    assert res.rc == 0
    return res


def pick(record: dict[str, Any], *keys: str) -> tuple[Any, ...]:
    return tuple(record[k] for k in keys)


def test_example_trace_results(example: Replay) -> None:
    # traces/README.md: spin 1 rotor cw ~18 rpm, ball ccw, 13 revolutions, 20;
    # spin 2 rotor ccw ~12 rpm, ball cw, 14 revolutions, 00.
    first, second = example.outcomes
    keys = ("type", "spin", "number", "ball_revolutions", "ball_direction", "rotor_direction")
    assert pick(first, *keys) == ("spin_result", 1, "20", 13, "ccw", "cw")
    assert pick(second, *keys) == ("spin_result", 2, "00", 14, "cw", "ccw")
    assert first["rotor_rpm"] == pytest.approx(18, abs=1.5)
    assert second["rotor_rpm"] == pytest.approx(12, abs=1.5)
    # Its settlements are seed 001 Art. 13's (tests/articles/test_seed_001_roulette_art13.py).


def test_example_trace_is_the_shared_one() -> None:
    # tests/traces holds a copy so that the suite stands alone; it must not drift.
    shared = SHARED / "traces" / "roulette-two-spins.jsonl"
    if not shared.exists():
        pytest.skip("no ../shared beside the repository")
    assert (TRACES / "roulette-two-spins.jsonl").read_bytes() == shared.read_bytes()


def test_replay_fixture_works_per_test(replay: ReplayFn) -> None:
    # A one-spin trace of the pocket opposite 0 on the double-zero wheel (index 19 is 00).
    tb = TraceBuilder("double_zero")
    tb.inp(0.1, "open_bets")
    rotor = Rotor.turning(1.0, (4.0,), "ccw", until=45.0)
    ball_a = tb.ball(rotor.a[1] + 1.0, REAL_LAPS, "cw")
    tb.pocket(rotor.pocket_times(19, tb.n, drop_time(ball_a) + 1.0, 2), 4.0)
    tb.add(*rotor.events())
    assert replay(tb).outcome()["number"] == "00"
