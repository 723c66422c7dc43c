"""The bench's frame: named sections, chosen with ``--only``, figures kept for ``--json``,
and a CPU quota that stands for one Raspberry Pi 4 core (the ``pi`` section).

A section is a function of one :class:`Run`; it prints its heading (``== NAME: ...``) and
its lines, and records each figure with :meth:`Run.figure` under a stable key, so that
``--json FILE`` writes every figure measured in the run: one number a key, no samples.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

PI_SHARE = 0.2
"""A Pi 4 core against one core of this machine, as a CPU quota: a fifth of a core (a
Cortex-A72 at 1.5 GHz runs this Python code some four to five times slower than a
desktop x86 core)."""


# A small parent for the command whose peak memory is measured: a process's ru_maxrss
# keeps the resident size of what it was forked from (the kernel carries the old memory's
# high-water mark over exec), so a child of the bench, grown by its sections, would report
# the bench's size. This parent is a fresh interpreter; it prints the command's peak (KiB)
# and exit code.
_PEAK_PARENT = """import os, subprocess, sys
out = None if sys.argv[1] == "keep" else subprocess.DEVNULL
p = subprocess.Popen(sys.argv[2:], stdout=out, stderr=subprocess.DEVNULL)
_, status, usage = os.wait4(p.pid, 0)
print(usage.ru_maxrss, os.waitstatus_to_exitcode(status), file=sys.stderr)
"""


def peak_mb(command: list[Any], keep: bool = False) -> tuple[float, int, float, str]:
    """Run ``command``; its own peak resident memory (MB), its exit code, the wall time (s,
    a small parent's start included: some 20 ms) and its standard output (``keep``; else
    it goes to nowhere and this is empty)."""
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _PEAK_PARENT, "keep" if keep else "drop",
                           *map(str, command)], capture_output=True, text=True, check=True)
    peak, rc = done.stderr.split()
    return int(peak) / 1024, int(rc), time.perf_counter() - t0, done.stdout


def met(ok: bool) -> str:
    """A goal's verdict in a figure's line."""
    return "met" if ok else "NOT met"


@dataclass
class Run:
    """One bench run: its scratch folder and the figures measured so far."""

    scratch: Path
    figures: dict[str, Any] = field(default_factory=dict)
    _bare: list[float] | None = None

    def figure(self, key: str, value: Any) -> Any:
        """Keep ``value`` (a number, a bool or a short string) under ``key``."""
        self.figures[key] = round(value, 4) if isinstance(value, float) else value
        return value

    def bare_commits(self, measure: Callable[[Path], list[float]]) -> list[float]:
        """The bare SQLite commit times of this run, measured once."""
        if self._bare is None:
            self._bare = measure(self.scratch / "bare.sqlite")
        return self._bare


Section = Callable[[Run], None]


def choose(sections: dict[str, Section], only: str | None) -> list[str]:
    """The sections ``--only`` names (comma-separated), in the bench's order.

    Raises:
        SystemExit: a name that is no section (one line, exit 2).
    """
    if not only:
        return list(sections)
    names = [n.strip() for n in only.split(",") if n.strip()]
    unknown = [n for n in names if n not in sections]
    if unknown:
        print(f"bench: --only: no section {unknown[0]!r}; the sections are "
              f"{', '.join(sections)}", file=sys.stderr)
        raise SystemExit(2)
    return [n for n in sections if n in names]


def write_json(path: Path, run: Run) -> None:
    path.write_text(json.dumps(run.figures, indent=2, sort_keys=True) + "\n")


class Quota:
    """A CPU cgroup limited to ``share`` of one core (cgroup v2 ``cpu.max`` or v1
    ``cpu.cfs_quota_us``), for child processes; :meth:`make` returns None, with the
    reason in :attr:`why_not`, where no cgroup can be made (not root, no cpu
    controller)."""

    why_not = ""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @classmethod
    def make(cls, share: float, name: str = "table-controller-bench") -> Quota | None:
        period = 100_000
        quota = int(period * share)
        v2 = Path("/sys/fs/cgroup")
        v1 = v2 / "cpu"
        try:
            if (v2 / "cgroup.controllers").exists():
                if "cpu" not in (v2 / "cgroup.controllers").read_text().split():
                    cls.why_not = "the cgroup v2 hierarchy has no cpu controller"
                    return None
                folder = v2 / name
                folder.mkdir(exist_ok=True)
                (folder / "cpu.max").write_text(f"{quota} {period}\n")
            elif (v1 / "cpu.cfs_quota_us").exists():
                folder = v1 / name
                folder.mkdir(exist_ok=True)
                (folder / "cpu.cfs_period_us").write_text(f"{period}\n")
                (folder / "cpu.cfs_quota_us").write_text(f"{quota}\n")
            else:
                cls.why_not = "no cpu cgroup is mounted"
                return None
        except OSError as exc:
            cls.why_not = f"a cgroup cannot be made here ({exc.strerror})"
            return None
        return cls(folder)

    def run(self, command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        """``command`` run to its end inside the quota (its children too)."""
        procs = self.folder / "cgroup.procs"

        def enter() -> None:
            procs.write_text(f"{os.getpid()}\n")

        return subprocess.run(command, preexec_fn=enter, text=True, **kwargs)

    def remove(self) -> None:
        with contextlib.suppress(OSError):  # a process of it still runs: left as is
            self.folder.rmdir()


class Fitted(io.TextIOBase):
    """A text stream that writes each whole line to ``out`` cut at spaces to ``WIDTH``,
    the continuations indented two more than the line (a path or a hash stays whole):
    the bench's figures on an 80-column terminal."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self._pending = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        *lines, self._pending = (self._pending + text).split("\n")
        for line in lines:
            self.out.write(_fit(line) + "\n")
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self.out.write(_fit(self._pending))
            self._pending = ""
        self.out.flush()


WIDTH = int(os.environ.get("BENCH_WIDTH", "80"))
"""The columns a line is cut to: 80, less where a parent prefixes the lines (``pi``)."""


def _fit(line: str) -> str:
    indent = len(line) - len(line.lstrip(" "))
    return "\n".join(textwrap.wrap(line, WIDTH, subsequent_indent=" " * (indent + 2),
                                    break_long_words=False, break_on_hyphens=False)) or line
