"""``replay`` and ``replay --realtime --speed X`` agree (CONTRACT §3).

The realtime mode plays the trace into gpiozero mock pins through the real driver threads,
with the controller's clock running X times faster; CONTRACT §3 asks for the same results,
reasons, revolutions and settlements as the virtual-time replay (only measured times may
differ by the scheduling jitter). X = 10 keeps each run to seconds: the 160 s trace of
``simulate --spins 3 --seed 7`` takes 16 s, and half a pocket is still 2 ms of wall time.
The realtime runs are subprocesses (the daemon's own entry point), one after the other.

The clock starts when the player does: a spin that starts 0.1 s into the trace
(``early``) is measured as in virtual time.

On a loaded machine the player falls behind (issue 16): it then says so (a
``player_late`` alarm, its worst lateness on stderr, exit 5) and the run is no comparison;
even then no verdict may be wrong: each spin concludes as in virtual time, or is held (a
spin the trace does not have, too). A late run is made again, up to ``ATTEMPTS`` runs, so
that the comparison is made whenever the machine lets the player keep time; every run is
checked.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, TRACES, Replay, replayer, run_replay, write_trace

from controller.cli import main as cli
from sim.lateness import EXIT_LATE

EXAMPLE = TRACES / "roulette-two-spins.jsonl"
SPEED = "10"
LEAD_IN = 10.0


def shifted(trace: Path, by: float, out: Path) -> Path:
    """``trace`` with every event ``by`` seconds later (earlier if negative, not before 0)."""
    lines = [json.loads(x) for x in trace.read_text().splitlines() if x.strip()]
    return write_trace(out, [lines[0], *({**e, "t": round(max(0.0, e["t"] + by), 6)}
                                         for e in lines[1:])])


def outcomes(records: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    keys = ("type", "spin", "number", "reason", "reasons", "ball_revolutions",
            "ball_direction", "rotor_direction")
    return [tuple(r.get(k) for k in keys) for r in records
            if r["type"] in ("spin_result", "spin_invalid", "spin_held")]


def settlements(records: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    keys = ("game", "box", "kind", "amount", "numbers", "which", "outcome", "payout")
    return sorted(tuple(json.dumps(r.get(k)) for k in keys) for r in records
                  if r["type"] == "settlement")


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sim") / "three.jsonl"
    assert cli.main(["simulate", "--spins", "3", "--seed", "7", "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory, simulated: Path) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("traces")
    return {
        "simulated": shifted(simulated, LEAD_IN, tmp / "simulated.jsonl"),
        "example": shifted(EXAMPLE, LEAD_IN, tmp / "example.jsonl"),
        # The example 2.7 s earlier: its first spin starts 0.1 s in.
        "early": shifted(EXAMPLE, -2.7, tmp / "early.jsonl"),
        # The example cut after spin 1's second pocket reading, before the rotor_a that
        # closes its revolution: the verdict falls due after the trace's last line.
        "cut": shifted(write_trace(tmp / "cut-raw.jsonl", [
            e for e in map(json.loads, EXAMPLE.read_text().splitlines()) if e["t"] <= 23.0]),
            LEAD_IN, tmp / "cut.jsonl"),
    }


ATTEMPTS = 3
"""Realtime runs of a trace at most: a run the player drove late is no comparison, and a
loaded machine makes many late; another run may be on time."""


@pytest.fixture(scope="module")
def realtime(tmp_path_factory: pytest.TempPathFactory, traces: dict[str, Path]
             ) -> dict[str, list[subprocess.CompletedProcess[str]]]:
    """The traces replayed in real time, one after the other: a second process starting up
    next to a running one can delay it past the realtime mode's 50 ms grace (its timers
    fire 0.05 × speed clock seconds late) on a loaded 2-core machine. A run that exits
    late (``EXIT_LATE``) is made again, up to ``ATTEMPTS`` runs in all; each is kept."""
    tmp = tmp_path_factory.mktemp("realtime")
    runs: dict[str, list[subprocess.CompletedProcess[str]]] = {}
    for name, trace in traces.items():
        runs[name] = []
        while len(runs[name]) < ATTEMPTS and (
                not runs[name] or runs[name][-1].returncode == EXIT_LATE):
            journal = tmp / f"{name}-{len(runs[name])}.sqlite"
            # No timed assertion: the bound only stops a run that hangs (19 s of wall time
            # at the speed, and a slow start on a loaded machine).
            runs[name].append(subprocess.run(
                [sys.executable, "-m", "controller.cli.main", "replay", str(trace),
                 "--realtime", "--speed", SPEED, "--journal", str(journal)],
                cwd=REPO, capture_output=True, text=True, timeout=180))
    return runs


@pytest.fixture(scope="module")
def virtual(tmp_path_factory: pytest.TempPathFactory, traces: dict[str, Path]
            ) -> dict[str, Replay]:
    replay = replayer(tmp_path_factory.mktemp("virtual"))
    return {name: replay(trace) for name, trace in traces.items()}


def records_of(proc: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]


@pytest.mark.realtime
@pytest.mark.parametrize("name", [
    "simulated", "example",
    "early", "cut",
])
def test_realtime_gives_the_same_results(
        name: str, virtual: dict[str, Replay],
        realtime: dict[str, list[subprocess.CompletedProcess[str]]]) -> None:
    assert virtual[name].rc == 0
    want = virtual[name].records
    assert outcomes(want), "the trace must conclude spins"
    for proc in realtime[name]:
        got = records_of(proc)
        assert [r["seq"] for r in got] == list(range(1, len(got) + 1))
        assert "player: worst lateness" in proc.stderr
        if proc.returncode == EXIT_LATE:
            # The stimulus was late: no comparison, and no wrong verdict either.
            assert [a for a in got if a.get("code") == "player_late"], proc.stderr
            assert "over the bound" in proc.stderr
            truth = {o[1]: o for o in outcomes(want)}
            for o in outcomes(got):
                assert o[0] == "spin_held" or o == truth.get(o[1]), (o, truth.get(o[1]))
            assert set(settlements(got)) <= set(settlements(want))
            continue
        assert proc.returncode == 0, proc.stderr
        assert outcomes(got) == outcomes(want)
        assert settlements(got) == settlements(want)


def test_a_verdict_due_after_the_last_line_is_reached_in_both_modes(
        virtual: dict[str, Replay]) -> None:
    # CONTRACT §3: the replay runs trace time on after the last event, as the daemon would.
    assert [o[:3] for o in outcomes(virtual["cut"].records)] == [("spin_result", 1, "20")]


def test_simulated_spins_match_the_simulator(virtual: dict[str, Replay]) -> None:
    # The simulator's own truth for seed 7 (it knows where each ball came to rest).
    from controller.games.roulette.simulation import simulate

    _, truth = simulate(3, 7)
    got = [(o["number"], o["ball_revolutions"], o["ball_direction"], o["rotor_direction"])
           for o in virtual["simulated"].outcomes]
    assert got == [(s.number, s.ball_revolutions, s.ball_direction, s.rotor_direction)
                   for s in truth]


def test_replay_is_deterministic(tmp_path: Path, simulated: Path) -> None:
    first = run_replay(simulated, tmp_path / "a.sqlite")
    second = run_replay(simulated, tmp_path / "b.sqlite")
    assert first.records == second.records


def test_replay_journal_holds_what_was_printed(tmp_path: Path) -> None:
    from controller.store.journal import Journal

    res = run_replay(EXAMPLE, tmp_path / "j.sqlite")
    with Journal(res.journal, readonly=True) as journal:
        assert list(journal.records()) == res.records
        assert journal.verify().ok


def test_a_realtime_player_behind_its_bound_journals_player_late(tmp_path: Path) -> None:
    # Issue 16: no player drives an edge within a nanosecond of trace time: the run says
    # it is no comparison (an alarm, the worst lateness, exit 5), the records all there.
    from conftest import one_spin

    tb, _spin = one_spin(pocket=7)
    trace = write_trace(tmp_path / "spin.jsonl", tb.events())
    done = subprocess.run(
        [sys.executable, "-m", "controller.cli.main", "replay", str(trace), "--realtime",
         "--speed", "50", "--max-late-ms", "0.000001",
         "--journal", str(tmp_path / "j.sqlite")],
        cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == EXIT_LATE, done.stderr
    got = records_of(done)
    (alarm,) = [r for r in got if r.get("code") == "player_late"]
    assert "not a comparison" in alarm["message"]
    assert "player: worst lateness" in done.stderr and "over the bound" in done.stderr
    assert [r["type"] for r in got].count("spin_start") == 1


def test_max_late_ms_needs_realtime(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                    ) -> None:
    assert cli.main(["replay", str(EXAMPLE), "--max-late-ms", "5"]) == 2
    assert "--max-late-ms" in capsys.readouterr().err


@pytest.mark.realtime
def test_realtime_under_load_never_gives_a_wrong_verdict(
        simulated: Path, virtual: dict[str, Replay],
        realtime: dict[str, list[subprocess.CompletedProcess[str]]], tmp_path: Path,
        load: str) -> None:
    # Issue 16: "replay --realtime --speed 10 on a loaded machine gave 16 where the trace's
    # truth is 33". Idle or with a busy second process: the run is on time and gives the
    # virtual replay's verdicts, or says it fell behind and holds what it cannot trust.
    # Idle, the runs are those of the simulated trace above (the same command, alone).
    truth = {o[1]: o for o in outcomes(virtual["simulated"].records)}
    procs = realtime["simulated"] if load == "idle" else [subprocess.run(
        [sys.executable, "-m", "controller.cli.main", "replay", str(simulated), "--realtime",
         "--speed", SPEED, "--journal", str(tmp_path / "j.sqlite")],
        cwd=REPO, capture_output=True, text=True, timeout=60)]
    for proc in procs:
        assert proc.returncode in (0, EXIT_LATE), proc.stderr
        got = records_of(proc)
        late = [r for r in got if r.get("code") == "player_late"]
        assert bool(late) == (proc.returncode == EXIT_LATE)
        for o in outcomes(got):
            # The virtual replay's copy of the trace has a lead-in: the same spins,
            # numbered alike.
            assert o == truth[o[1]] or o[0] == "spin_held", (o, truth[o[1]])
        for r in got:
            if r["type"] == "spin_result":
                assert all("angle_error_deg" in p for p in r["pocket_readings"]
                           if p.get("index") is not None)
