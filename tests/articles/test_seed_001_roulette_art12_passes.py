"""Rotor sensors that miss passes near the verdict never void a spin (seed 001 Art. 12 f,
g; CONTRACT §5): found by a trace the sweeps had not tried, the simulated spins with the
rotor's edges cut out of a window before each verdict.

- Both ``rotor_a`` and ``rotor_b`` silent for a pass: the revolution is twice the last
  one, which Art. 12 (g) took for a stopped wheel (``wheel_stopped``, bets returned).
  Whole turns at the rotor's own speed are passes missed, or a rotor braked to just that
  speed: which, the evidence cannot say, so the spin is held.

The truth is the clean trace's: each spin's number when nothing is cut.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from conftest import Replay, run_replay

from controller.cli import main as cli


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[dict], Replay]:
    folder = tmp_path_factory.mktemp("rotor_cut")
    trace = folder / "clean.jsonl"
    with contextlib.redirect_stderr(io.StringIO()):
        assert cli.main(["simulate", "--spins", "3", "--seed", "5", "--out", str(trace)]) == 0
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    return lines, run_replay(trace, folder / "clean.sqlite")


def cut(tmp_path: Path, lines: list[dict], inputs: set[str], start: float, end: float
        ) -> Replay:
    kept = [e for e in lines if not (e.get("gpio") in inputs and start <= e["t"] <= end)]
    trace = tmp_path / "cut.jsonl"
    trace.write_text("".join(json.dumps(e) + "\n" for e in kept))
    return run_replay(trace, tmp_path / "cut.sqlite")


@pytest.mark.parametrize(("spin", "inputs", "width"), [
    (1, {"rotor_a", "rotor_b"}, 1.5),  # both sensors miss one pass
])
def test_art_12g_a_rotor_short_of_passes_is_held_never_void(
        tmp_path: Path, clean: tuple[list[dict], Replay], spin: int, inputs: set[str],
        width: float) -> None:
    lines, truth = clean
    (result,) = [r for r in truth.of("spin_result") if r["spin"] == spin]
    got = cut(tmp_path, lines, inputs, result["t"] - width, result["t"])
    mine = [r for r in got.of("spin_result", "spin_invalid", "spin_held")
            if r["spin"] == spin]
    assert [r["type"] for r in mine] == ["spin_held"], mine
    assert mine[0]["reason"] == "sensor_fault" and "rotor" in mine[0]["details"]
    assert mine[0].get("candidate") in (None, result["number"])
