"""``make run``'s floor (issue 18, done when): beside the simulated table, ``python -m
feed.local`` starts a Mosquitto, a PostgreSQL cluster under var/, table-feed and
table-floor, one banner line each; ``table-floor status`` then shows the table live; an
interrupt stops all of them, exit 0, no traceback, no process left.

Real parts: Debian's mosquitto and PostgreSQL (skipped, saying why, without them).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from floor_parts import (
    BIN,
    finished,
    journal_head,
    missing_parts,
    replay,
    simulate_journal,
    wait_for,
)
from processes import stopped

from feed.local import outside_folder

pytestmark = pytest.mark.skipif(missing_parts() is not None, reason=str(missing_parts()))


@pytest.fixture
def workdir() -> Iterator[Path]:
    """A clone's stand-in in a private folder (mode 0700, as CI's may be): as root, the
    cluster's unprivileged user cannot reach its var/floor/pg, and the cluster is kept
    in the clone's folder outside."""
    folder = Path(tempfile.mkdtemp(prefix="local-floor-")).resolve()
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
    shutil.rmtree(outside_folder(folder / "var" / "floor"), ignore_errors=True)


def _postmaster(workdir: Path) -> Path | None:
    """The cluster's pid file, in var/floor or outside the clone (feed.local's choice)."""
    return next((p for p in (workdir / "var/floor/pg/data/postmaster.pid",
                             outside_folder(workdir / "var/floor") / "data" /
                             "postmaster.pid") if p.exists()), None)


def _children(pid: int) -> list[int]:
    return [int(p) for p in subprocess.run(["pgrep", "-P", str(pid)], capture_output=True,
                                           text=True).stdout.split()]


def _kill_all(local: subprocess.Popen[bytes], workdir: Path) -> None:
    """``feed.local`` and what it started, when it would not stop: its children SIGKILLed,
    its cluster stopped at once (SIGQUIT: PostgreSQL's immediate shutdown)."""
    for pid in _children(local.pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    local.kill()
    if (pid_file := _postmaster(workdir)) is not None:
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.kill(int(pid_file.read_text().split()[0]), signal.SIGQUIT)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"


def test_the_floor_beside_the_simulated_table_shows_it_live(workdir: Path) -> None:
    trace = simulate_journal(workdir, "roulette", 3)
    journal = workdir / "var" / "journal.sqlite"
    assert finished(replay(trace, journal), "the replay", lambda: journal_head(journal)) == 0
    out = open(workdir / "out.txt", "w+b")  # noqa: SIM115 (read after the process ends)
    local = subprocess.Popen([sys.executable, "-m", "feed.local"], cwd=workdir,
                             stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_for("the banner", lambda: b"table-floor:" in (workdir / "out.txt").read_bytes(),
                 60, every=0.2)

        def status() -> str:
            return subprocess.run([str(BIN / "table-floor"), "--config",
                                   "var/floor/floor.toml", "status"], cwd=workdir,
                                  capture_output=True, text=True).stdout

        text = wait_for("the table live on the floor", lambda: (s := status()) and
                        "0 records behind" in s and s, 60, every=0.5)
        assert "table sim-roulette (roulette): feed online" in text
        # The feed started once the floor had subscribed: no record reached nobody, so
        # the floor saw no gap (an error-level chain alarm in its log).
        assert "chain_alarm" not in (workdir / "var/floor/floor.log").read_text()
        pid_file = _postmaster(workdir)
        assert pid_file is not None
        pg_pid = int(pid_file.read_text().split()[0])
        children = _children(local.pid)
        assert len(children) == 3  # the broker, the feed, the floor
    finally:
        code, _ = stopped(local, signal.SIGINT, 60, kill=lambda: _kill_all(local, workdir))
    text = (workdir / "out.txt").read_text()
    assert code == 0
    assert "Traceback" not in text
    lines = text.splitlines()
    assert [line.split(":")[0] for line in lines] == [
        "mosquitto", "postgresql", "table-feed", "table-floor"]
    assert all(len(line) <= 80 for line in lines)
    assert not [p for p in (pg_pid, *children) if _alive(p)]
