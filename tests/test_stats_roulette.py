"""Roulette's surveillance figures (issue 21) against independent figures: χ² samples worked
by hand, published critical values, simulated biased and fair wheels, dealers whose release
is fixed relative to the rotor or uniform, and the pocket under the ball at its release
worked out from a trace's rotor phase (CONTRACT §1's decoding rule)."""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pytest
from conftest import ReplayFn, one_spin

from controller.core import stats
from controller.games.roulette.layout import WHEEL_ORDERS
from controller.games.roulette.stats import RouletteFold, detect, drop_angle, sector_scan

ORDER = WHEEL_ORDERS["single_zero"]


def test_chi_square_of_a_sample_worked_by_hand() -> None:
    # 60 draws on three equal cells: expected 20 each; chi2 = (100 + 0 + 100) / 20 = 10;
    # with 2 dof the survival function is exp(-x/2): p = exp(-5).
    fit = stats.chi_square([10, 20, 30], [1 / 3] * 3)
    assert fit["chi_square"] == pytest.approx(10.0)
    assert fit["dof"] == 2
    assert fit["p_value"] == pytest.approx(math.exp(-5), rel=1e-9)


def test_critical_values_are_the_published_ones() -> None:
    assert stats.chi_square([5] * 37, [1 / 37] * 37)["critical_5pct"] == 50.998
    assert stats.chi_square([5] * 38, [1 / 38] * 38)["critical_5pct"] == 52.192


def test_a_37_pocket_sample_below_and_above_the_critical_value() -> None:
    # 185 spins, expected 5 a pocket. 15, 0, 0 and 34 fives: (100 + 25 + 25) / 5 = 30.
    fit = stats.chi_square([15, 0, 0] + [5] * 34, [1 / 37] * 37)
    assert fit["chi_square"] == pytest.approx(30.0)
    assert fit["dof"] == 36 and fit["p_value"] > 0.05
    # 25, four zeros and 32 fives: (400 + 4 * 25) / 5 = 100, beyond 50.998.
    fit = stats.chi_square([25, 0, 0, 0, 0] + [5] * 32, [1 / 37] * 37)
    assert fit["chi_square"] == pytest.approx(100.0)
    assert fit["p_value"] < 0.05


def test_a_small_sample_gives_its_counts_and_no_test() -> None:
    fold = RouletteFold("single_zero")
    for i in range(40):  # expected 40 / 37 = 1.1 a pocket, 3.2 a sector of 3
        fold.fold({"type": "spin_result", "spin": i, "number": ORDER[i % 37],
                   "pocket_index": i % 37})
    fig = fold.figures()
    assert fig["spins"] == 40 and sum(fig["counts"].values()) == 40
    assert fig["chi_square"] is None and fig["p_value"] is None
    assert "no test made" in fig["test"]
    assert all(s["p_value"] is None for s in fig["sectors"] if s["size"] == 3)


def test_shares_count_red_black_and_zero_with_intervals() -> None:
    fold = RouletteFold("single_zero")
    for number in ("1", "3", "2", "0"):  # red, red, black, zero
        fold.fold({"type": "spin_result", "spin": 1, "number": number,
                   "pocket_index": ORDER.index(number)})
    shares = fold.figures()["shares"]
    assert (shares["red"]["count"], shares["black"]["count"], shares["zero"]["count"]) == (
        2, 1, 1)
    assert shares["red"]["expected"] == pytest.approx(18 / 37, abs=1e-6)
    assert shares["red"]["low"] < 0.5 < shares["red"]["high"]


def _flagged(counts: list[int]) -> bool:
    return any(s["p_value"] is not None and s["p_value"] < 0.05
               for s in sector_scan(counts, ORDER))


def test_a_pocket_at_twice_its_weight_is_found_within_the_predicted_spins() -> None:
    # 36 pockets of weight 1 and one of weight 2: its share is 2/38.
    weights = np.full(37, 1.0)
    weights[17] = 2.0
    p = weights / weights.sum()
    spins = detect(2 / 38, 37)["scan"]
    assert spins is not None
    rng = np.random.default_rng(21)
    found = [_flagged(rng.multinomial(spins, p).tolist()) for _ in range(200)]
    assert sum(found) / 200 >= 0.80  # the power the figure promises
    fewer = [_flagged(rng.multinomial(spins // 3, p).tolist()) for _ in range(200)]
    assert sum(fewer) / 200 < 0.80  # and it is not a figure any number of spins meets


def test_a_fair_wheel_is_not_flagged_beyond_its_false_alarm_rate() -> None:
    rng = np.random.default_rng(22)
    spins = detect(2 / 38, 37)["scan"] or 0
    alarms = [_flagged(rng.multinomial(spins, np.full(37, 1 / 37)).tolist())
              for _ in range(300)]
    # 5 % at most (Bonferroni is conservative); 3 standard errors of 300 draws above it.
    assert sum(alarms) / 300 <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 300)


def test_spins_to_detect_follows_the_normal_approximation() -> None:
    # Break-even on a single-zero wheel, named in advance: p0 = 1/37, p1 = 1/36,
    # z(0.95) = 1.6449, z(0.80) = 0.8416.
    p0, p1 = 1 / 37, 1 / 36
    root = 1.644854 * math.sqrt(p0 * (1 - p0)) + 0.841621 * math.sqrt(p1 * (1 - p1))
    assert detect(p1, 37)["named"] == pytest.approx((root / (p1 - p0)) ** 2, rel=1e-4)
    assert detect(1 / 37, 37) == {"named": None, "scan": None}


def _signature_records(rng: random.Random, fixed: int | None, spins: int
                       ) -> list[dict[str, Any]]:
    out = []
    for i in range(spins):
        release = rng.randrange(37)
        direction = rng.choice(("cw", "ccw"))
        step = rng.randrange(37) if fixed is None else fixed + rng.choice((-1, 0, 0, 1))
        settled = (release + step) % 37 if direction == "cw" else (release - step) % 37
        out.append({"type": "spin_result", "spin": i, "number": ORDER[settled],
                    "pocket_index": settled, "release_index": release,
                    "rotor_direction": direction})
    return out


def test_a_fixed_release_dealer_shows_a_signature_and_a_uniform_one_none() -> None:
    rng = random.Random(5)
    fold = RouletteFold("single_zero")
    fold.fold({"type": "dealer", "name": "Ana"})
    for rec in _signature_records(rng, 9, 400):  # 9 pockets on, give or take one
        fold.fold(rec)
    fold.fold({"type": "dealer", "name": "Bea"})
    for rec in _signature_records(rng, None, 400):
        fold.fold(rec)
    dealers = fold.figures()["dealers"]
    ana, bea = dealers["Ana"], dealers["Bea"]
    assert ana["spins"] == bea["spins"] == 400
    assert max(range(37), key=lambda k: ana["counts"][k]) == 9
    assert ana["p_value"] < 1e-6
    assert bea["p_value"] > 0.01


def test_the_release_pocket_is_the_one_under_the_ball_at_its_first_pass(
        replay: ReplayFn) -> None:
    # The launch the wheel sees is the ball's first pass of a ball-track sensor (ball_b at
    # 20 deg for a ball thrown counterclockwise from ball_a). The pocket under a sensor at
    # phi is CONTRACT §1's rule at fraction f - phi/360 turning clockwise, f + phi/360
    # counterclockwise, f the rotor's fraction of its revolution at that time.
    for rotor_dir in ("cw", "ccw"):
        tb, spin = one_spin(rotor_dir=rotor_dir, launch_phase=0.3)
        events = tb.events()
        first = min((e for e in events[1:] if e.get("gpio") in ("ball_a", "ball_b")
                     and e["level"] == 1), key=lambda e: e["t"])
        phi = 0.0 if first["gpio"] == "ball_a" else 20.0
        start = max(a for a in spin.rotor.a if a <= first["t"])
        f = (first["t"] - start) / spin.rotor.periods[spin.rotor.a.index(start)]
        shift = phi / 360 if rotor_dir == "cw" else -phi / 360
        k = round((f - shift) * 37) % 37
        expected = (37 - k) % 37 if rotor_dir == "cw" else k
        assert replay(events).outcome()["release_index"] == expected


def test_the_drop_angle_follows_the_laps_and_the_ball_direction() -> None:
    # Laps of 1.0 s then 1.25 s: mean speeds 1 and 0.8 rev/s 1.125 s apart, so
    # alpha = 0.2 / 1.125; the speed at the last pass 0.8 - alpha * 0.625; the ball goes on
    # (omega^2 - 0.45^2) / (2 alpha) revolutions.
    alpha = 0.2 / 1.125
    omega = 0.8 - alpha * 0.625
    turns = (omega**2 - 0.45**2) / (2 * alpha)
    assert drop_angle([1.0, 1.25], "cw") == pytest.approx(turns * 360)
    assert drop_angle([1.0, 1.25], "ccw") == pytest.approx(360 - turns * 360)
    assert drop_angle([1.25], "cw") is None


def test_the_figures_are_scipy_stats_own() -> None:
    from scipy import stats as sp

    counts = [12, 7, 9, 3, 9]
    fit = stats.chi_square(counts, [0.2] * 5)
    ref = sp.chisquare(counts, [8] * 5)
    assert fit["chi_square"] == pytest.approx(ref.statistic, abs=1e-4)
    assert fit["p_value"] == pytest.approx(ref.pvalue, rel=1e-9)
    assert fit["critical_5pct"] == pytest.approx(sp.chi2.isf(0.05, 4), abs=1e-3)
    assert stats.upper_tail([0, 3, 9], 40, 0.1) == pytest.approx(
        [1.0, sp.binom.sf(2, 40, 0.1), sp.binom.sf(8, 40, 0.1)], rel=1e-9)
    ci = sp.binomtest(18, 37).proportion_ci(0.95, method="wilson")
    row = stats.share(18, 37, 18 / 37)
    assert (row["low"], row["high"]) == pytest.approx((ci.low, ci.high), abs=1e-6)


def test_a_double_zero_wheel_has_38_pockets_and_two_zeros() -> None:
    order = WHEEL_ORDERS["double_zero"]
    fold = RouletteFold("double_zero")
    for i in range(38 * 5):  # 5 a pocket: the test is made, and the sample is exactly fair
        fold.fold({"type": "spin_result", "spin": i, "number": order[i % 38],
                   "pocket_index": i % 38})
    fig = fold.figures()
    assert fig["dof"] == 37 and fig["critical_5pct"] == 52.192
    assert fig["chi_square"] == 0 and fig["p_value"] == pytest.approx(1.0)
    assert fig["counts"]["00"] == 5
    assert fig["shares"]["zero"]["count"] == 10
    assert fig["shares"]["zero"]["expected"] == pytest.approx(2 / 38, abs=1e-6)
    assert len(fig["sectors"]) == 3 * 38


def test_a_result_of_another_wheel_is_one_clear_error() -> None:
    from controller.core.errors import InputError

    fold = RouletteFold("single_zero")
    with pytest.raises(InputError, match="'00' is not a pocket of the single_zero wheel"):
        fold.fold({"type": "spin_result", "spin": 3, "number": "00", "pocket_index": 19})
