"""Commissioning a GPIO wheel (issue 11): ``tablectl calibrate`` reads the rotor's passes
and the pocket sensor with a ball at rest in a pocket the technician names, checks the
mapping and gives the pocket sensor's angle for ``[roulette] ball_pocket_deg``.

The simulated wheel (sim.wheel_geometry) places the pocket sensor at a known angle: the
expected offset is that angle, the geometry's input, not anything the code computes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_replay, write_trace

from controller.cli.tablectl import main as tablectl_main
from controller.games.roulette.layout import WHEEL_ORDERS
from controller.games.roulette.simulation import RouletteSimConfig, simulate
from sim.wheel_geometry import resting_ball_events
from sim.wheel_sim import WheelSimConfig

SENSOR_DEG = 33.0  # where the pocket sensor is mounted, clockwise of rotor_a
ORDER = WHEEL_ORDERS["single_zero"]


def resting_ball_journal(tmp_path: Path, *, pocket: str = "17",
                         ball_pulse_deg: float = 3.0) -> Path:
    """The journal of a table whose ball rests in ``pocket``: the rotor turned 4 times
    clockwise, then 4 times counterclockwise. The pocket sensor sees the ball 3° either
    side of centre, the rotor sensor its marker 2°: a reading comes 1° early each way."""
    index = ORDER.index(pocket)
    events = [
        *resting_ball_events([5.0] * 4, "cw", 1.0, index, len(ORDER),
                             ball_pocket_deg=SENSOR_DEG, ball_pulse_deg=ball_pulse_deg),
        *resting_ball_events([6.1] * 4, "ccw", 40.0, index, len(ORDER),
                             ball_pocket_deg=SENSOR_DEG, ball_pulse_deg=ball_pulse_deg),
    ]
    trace = write_trace(tmp_path / "resting.jsonl",
                        [{"t": 0, "meta": {"table": "roulette"}}, *events])
    journal = tmp_path / "journal.sqlite"
    assert run_replay(trace, journal).rc == 0
    return journal


def calibrate(journal: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = tablectl_main(["--journal", str(journal), *argv, "calibrate", "--pocket", "17",
                          "--recorded", "1000"])
    return code, capsys.readouterr().out


def test_calibrate_finds_where_the_pocket_sensor_is_mounted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = calibrate(resting_ball_journal(tmp_path), capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[-2:] == ["put this line in the config's [roulette] section:",
                          f"ball_pocket_deg = {SENSOR_DEG}"]
    # Each way alone is off by the sensor's wider window; the two ways cancel it.
    assert "cw   32.0 deg" in lines and "ccw  34.0 deg" in lines
    assert "the mapping with ball_pocket_deg = 0 is WRONG" in lines


def test_with_the_offset_in_the_config_the_mapping_gives_the_pocket(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = resting_ball_journal(tmp_path)
    config = tmp_path / "table.toml"
    config.write_text(f'[journal]\npath = "{journal}"\n[roulette]\n'
                      f'ball_pocket_deg = {SENSOR_DEG}\n')
    code, out = calibrate(journal, capsys, "--config", str(config))
    assert code == 0
    assert f"the mapping with ball_pocket_deg = {SENSOR_DEG:g} gives pocket 17 every turn: OK" \
        in out
    code, data = calibrate(journal, capsys, "--config", str(config), "--json")
    result = json.loads(data)
    assert result["mapping_ok"] is True
    assert {t["decoded"] for t in result["turns"]} == {"17"}
    assert len([t for t in result["turns"] if t["direction"] == "cw"]) >= 3


def test_calibrate_with_no_ball_read_says_what_to_check(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], example_journal: Path) -> None:
    code = tablectl_main(["--journal", str(example_journal), "calibrate", "--pocket", "99",
                          "--recorded", "5"])
    assert code == 2 and "'99' is not a pocket" in capsys.readouterr().err
    events = resting_ball_events([5.0] * 3, "cw", 1.0, 5, len(ORDER))
    trace = write_trace(tmp_path / "rotor.jsonl", [{"t": 0, "meta": {"table": "roulette"}},
                                                   *[e for e in events
                                                     if e["gpio"] != "ball_pocket"]])
    journal = tmp_path / "rotor.sqlite"
    assert run_replay(trace, journal).rc == 0
    code, out = calibrate(journal, capsys)
    assert code == 1 and "no rotor turn with a pocket reading" in out


def test_a_wheel_whose_pocket_sensor_is_off_0_deg_decodes_right_with_its_offset(
        tmp_path: Path) -> None:
    table = RouletteSimConfig(equipment=WheelSimConfig(ball_pocket_deg=SENSOR_DEG))
    objects, truth = simulate(12, 4, table)
    assert objects[0]["meta"]["ball_pocket_deg"] == SENSOR_DEG  # the trace says where it is
    trace = write_trace(tmp_path / "off.jsonl", objects)
    numbers = [r["number"] for r in run_replay(trace, tmp_path / "a.sqlite").of("spin_result")]
    assert numbers == [s.number for s in truth if s.expected == "result"]
    # Read as if the sensor were at 0°, the same passes point 3 to 4 pockets away.
    del objects[0]["meta"]["ball_pocket_deg"]
    wrong = write_trace(tmp_path / "at0.jsonl", objects)
    misread = run_replay(wrong, tmp_path / "b.sqlite").of("spin_result", "spin_held")
    assert not any(r.get("number") == s.number for r, s in zip(misread, truth, strict=False))


def test_calibrate_live_reads_what_the_daemon_journals_from_then_on(tmp_path: Path) -> None:
    import subprocess
    import sys

    from controller.store.journal import Journal

    path = tmp_path / "journal.sqlite"
    daemon = Journal(path)  # the running daemon's journal
    daemon.append("startup", 1.0, {"game": "roulette"})
    index = ORDER.index("17")
    events = [*resting_ball_events([5.0] * 3, "cw", 10.0, index, len(ORDER),
                                   ball_pocket_deg=SENSOR_DEG),
              *resting_ball_events([6.0] * 3, "ccw", 40.0, index, len(ORDER),
                                   ball_pocket_deg=SENSOR_DEG)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller.cli.tablectl", "--journal", str(path), "calibrate",
         "--pocket", "17", "--turns", "6", "--timeout", "60"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("reading the rotor and the pocket sensor")
        for event in events:  # the technician turns the rotor now
            daemon.edge(event["t"], event["gpio"], event["level"])
            if event["gpio"] == "rotor_a" and event["level"] == 0:
                # The daemon closes an evidence batch now and then (issue 8): here at
                # each rotor turn, so the calibration reads the turns as they come.
                daemon.append("evidence", event["t"], {"reason": "interval"},
                              closes_evidence=True)
        out, err = proc.communicate(timeout=60)
    finally:
        daemon.close()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert out.splitlines()[-1] == f"ball_pocket_deg = {SENSOR_DEG}"


def test_turns_that_disagree_recommend_no_offset(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The ball in pocket 17 clockwise, then (it moved) in pocket 6 counterclockwise.
    events = [*resting_ball_events([5.0] * 4, "cw", 1.0, ORDER.index("17"), len(ORDER),
                                   ball_pocket_deg=SENSOR_DEG),
              *resting_ball_events([6.1] * 4, "ccw", 40.0, ORDER.index("6"), len(ORDER),
                                   ball_pocket_deg=SENSOR_DEG)]
    trace = write_trace(tmp_path / "moved.jsonl",
                        [{"t": 0, "meta": {"table": "roulette"}}, *events])
    journal = tmp_path / "moved.sqlite"
    assert run_replay(trace, journal).rc == 0
    code, out = calibrate(journal, capsys)
    assert code == 1 and "the turns disagree by up to" in out
    assert "put this line" not in out
    assert not any(line.startswith("ball_pocket_deg =") for line in out.splitlines())
    code, data = calibrate(journal, capsys, "--json")
    assert code == 1 and json.loads(data)["ball_pocket_deg"] is None


def test_calibrate_refuses_a_window_where_the_table_played(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The newcomer's: --recorded 300 against a daemon that was playing spins.
    objects, _ = simulate(3, 7)
    journal = tmp_path / "played.sqlite"
    assert run_replay(write_trace(tmp_path / "spins.jsonl", objects), journal).rc == 0
    code = tablectl_main(["--journal", str(journal), "calibrate", "--pocket", "17",
                          "--recorded", "1000"])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    (line,) = err.splitlines()
    assert "it was not closed" in line and "calibrate again" in line


def test_calibrate_refuses_a_window_where_the_ball_moved(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    index = ORDER.index("17")
    events = [*resting_ball_events([5.0] * 4, "cw", 1.0, index, len(ORDER),
                                   ball_pocket_deg=SENSOR_DEG),
              {"t": 30.0, "gpio": "ball_a", "level": 1},
              {"t": 30.004, "gpio": "ball_a", "level": 0},
              *resting_ball_events([6.1] * 4, "ccw", 40.0, index, len(ORDER),
                                   ball_pocket_deg=SENSOR_DEG)]
    trace = write_trace(tmp_path / "rolled.jsonl",
                        [{"t": 0, "meta": {"table": "roulette"}}, *events])
    journal = tmp_path / "rolled.sqlite"
    assert run_replay(trace, journal).rc == 0
    code = tablectl_main(["--journal", str(journal), "calibrate", "--pocket", "17",
                          "--recorded", "1000"])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    (line,) = err.splitlines()
    assert "the ball moved: ball_a read it on the ball track at 30.000 s" in line
