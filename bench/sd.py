"""Issue 20's figures: memory that does not grow with the journal or the trace, replay
against the commit before the journal was rebuilt, and the Pi's CPU quota.

- ``verify``: ``tablectl verify --full`` on a journal of some 80 MB (a replayed session
  tiled), its peak memory (goal < 64 MB, whatever the size).
- ``replay-memory``: ``table-controller replay`` of a 10,000-spin trace, its peak memory
  (goal < 128 MB).
- ``replay-vs-base``: the whole replay command of 1,000 spins, this tree against commit
  ``BASE`` (extracted from git into the scratch folder), in turn, A B A B, in one run
  (goal: at least 1.5x as fast; CPU time printed beside).
- ``pi``: the decision-to-commit, replay, start-up and display sections again inside a
  cgroup of a fifth of a core (one Pi 4 core), both printed.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from harness import PI_SHARE, Quota, Run, met, peak_mb

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
BASE = "31501a9"
"""The commit before the journal was rebuilt (issue 8), the replay's reference."""


def _timed(command: list[str], **kwargs: object) -> tuple[int, float, float]:
    """Run ``command``; its exit code, wall time and CPU time (user and system, s)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            **kwargs)  # type: ignore[call-overload]
    _, status, usage = os.wait4(proc.pid, 0)
    return (os.waitstatus_to_exitcode(status), time.perf_counter() - t0,
            usage.ru_utime + usage.ru_stime)


def _simulated(run: Run, spins: int, seed: int) -> Path:
    trace = run.scratch / f"spins-{spins}-{seed}.jsonl"
    if not trace.exists():
        subprocess.run([BIN / "table-controller", "simulate", "--spins", str(spins),
                        "--seed", str(seed), "--out", trace], check=True)
    return trace


def bench_verify_memory(run: Run) -> None:
    from journals import tile

    trace = _simulated(run, 200, 1)
    source = run.scratch / "verify-source.sqlite"
    subprocess.run([BIN / "table-controller", "replay", trace, "--journal", source],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    big = run.scratch / "verify-big.sqlite"
    records = tile(source, big, 230_000)
    size = big.stat().st_size / 1e6
    peak, rc, wall, _ = peak_mb([str(BIN / "tablectl"), "--journal", str(big), "verify",
                               "--full"])
    run.figure("verify_full_peak_mb", peak)
    run.figure("verify_full_journal_mb", size)
    print(f"== verify: tablectl verify --full of a {size:.0f} MB journal ({records:,} "
          f"records): exit {rc} in {wall:.1f} s")
    print(f"   peak memory {peak:.0f} MB (goal under 64 MB, whatever the size: "
          f"{met(peak < 64)})")
    big.unlink()


def bench_replay_memory(run: Run) -> None:
    trace = _simulated(run, 10_000, 3)
    size = trace.stat().st_size / 1e6
    peak, rc, wall, _ = peak_mb([str(BIN / "table-controller"), "replay", str(trace),
                               "--journal", str(run.scratch / "replay-10k.sqlite")])
    run.figure("replay_peak_mb", peak)
    print(f"== replay-memory: replay of 10,000 simulated spins (a {size:.0f} MB trace): "
          f"exit {rc} in {wall:.0f} s")
    print(f"   peak memory {peak:.0f} MB (goal under 128 MB: {met(peak < 128)})")


def bench_replay_vs_base(run: Run) -> None:
    base = run.scratch / "base"
    base.mkdir(exist_ok=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", BASE], capture_output=True)
    if archive.returncode != 0:
        print(f"== replay-vs-base: skipped: commit {BASE} is not in this clone's history")
        return
    subprocess.run(["tar", "-x", "-C", str(base)], input=archive.stdout, check=True)
    _compile(base)
    _compile(ROOT)
    trace = _simulated(run, 1000, 1)
    env = {**os.environ, "PYTHONPATH": str(base)}
    # The base's entry point (controller.cli:main, a module then) and its trace format
    # (no meta.wheel_source then): the same seed simulated by the base itself.
    base_cli = [sys.executable, "-c", "import sys; from controller.cli import main; "
                "sys.exit(main())"]
    base_trace = run.scratch / "spins-1000-1-base.jsonl"
    subprocess.run([*base_cli, "simulate", "--spins", "1000", "--seed", "1", "--out",
                    str(base_trace)], env=env, cwd=base, check=True,
                   stdout=subprocess.DEVNULL)
    old = [*base_cli, "replay", str(base_trace)]
    new = [str(BIN / "table-controller"), "replay", str(trace)]
    walls, cpus = [], []
    for i in range(3):
        journal = run.scratch / f"vs-{i}"
        rc_new, wall_new, cpu_new = _timed([*new, "--journal", f"{journal}-new.sqlite"])
        rc_old, wall_old, cpu_old = _timed([*old, "--journal", f"{journal}-old.sqlite"],
                                           env=env, cwd=base)
        if rc_new or rc_old:
            print(f"== replay-vs-base: skipped: a replay failed (this tree exit {rc_new}, "
                  f"{BASE} exit {rc_old})")
            return
        walls.append((wall_new, wall_old))
        cpus.append((cpu_new, cpu_old))
    # CPU time beside (the command is single-threaded and a replay does not fsync): on a
    # shared machine a run's wall time is partly its share of a core.
    speedup = statistics.median(old / new for new, old in walls)
    cpu_speedup = statistics.median(old / new for new, old in cpus)
    run.figure("replay_speedup_over_base", speedup)
    run.figure("replay_cpu_speedup_over_base", cpu_speedup)
    print(f"== replay-vs-base: replay of 1,000 spins, whole command, this tree against "
          f"{BASE}, in turn (3 pairs)")
    print(f"   now {statistics.median(n for n, _ in walls):.2f} s, then "
          f"{statistics.median(o for _, o in walls):.2f} s: {speedup:.2f}x as fast "
          f"(goal at least 1.5x: {met(speedup >= 1.5)})")
    print(f"   CPU time now {statistics.median(n for n, _ in cpus):.2f} s, then "
          f"{statistics.median(o for _, o in cpus):.2f} s: {cpu_speedup:.2f}x")


def _compile(tree: Path) -> None:
    """Compile the packages of ``tree`` to bytecode, as an installed package has them:
    where PYTHONDONTWRITEBYTECODE is set nothing is cached, and each run would compile
    every module it imports anew (this tree has some 120; the base fewer), which no table
    does."""
    packages = [name for name in ("controller", "drivers", "sim") if (tree / name).is_dir()]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *packages], cwd=tree,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)


PI_SECTIONS = ("commit", "replay", "ready", "display")


def bench_pi(run: Run) -> None:
    quota = Quota.make(PI_SHARE)
    if quota is None:
        print(f"== pi: skipped: {Quota.why_not}; the Pi's figures need a CPU cgroup (root)")
        return
    out = run.scratch / "pi.json"
    try:
        # Its lines come back as "   pi |" + the line less two spaces: five columns more.
        child = quota.run([sys.executable, str(ROOT / "bench" / "bench.py"), "--only",
                           ",".join(PI_SECTIONS), "--json", str(out)],
                          capture_output=True, env={**os.environ, "BENCH_WIDTH": "75"})
    finally:
        quota.remove()
    print(f"== pi: {', '.join(PI_SECTIONS)} again inside a CPU quota of {PI_SHARE:g} of a "
          "core (one Pi 4 core)")
    if child.returncode != 0 or not out.exists():
        print(f"   the quota's run failed (exit {child.returncode}): "
              f"{child.stderr.strip().splitlines()[-1:] or ''}")
        return
    figures = json.loads(out.read_text())
    for line in child.stdout.splitlines():
        if line.startswith("   "):
            print(f"   pi |{line[2:]}")
    for key in ("decision_commit_p99_over_bare", "replay_controller_over_parse",
                "replay_1000_spins_s"):
        if key in figures:
            run.figure(f"pi_{key}", figures[key])
            here = run.figures.get(key)
            also = f" (full speed: {here:g})" if here is not None else ""
            print(f"   pi {key}: {figures[key]:g}{also}")
