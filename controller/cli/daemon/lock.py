"""Who runs on a journal: the daemon's lock file beside it, ``<journal>.lock``.

The daemon holds an exclusive ``flock`` on it for its whole life (a second daemon on the
same journal stops before writing: :func:`lock_journal`) and writes in it
one JSON line: its ``pid``, its start time ``started`` (epoch seconds), its ``config`` and
control ``socket``; on a clean stop it adds ``stopped``. ``tablectl`` reads the line
without taking the lock, and tells whether the lock is held from the kernel's table of
locks (``/proc/locks``: the lock's holder and the file's device and inode), so that it never
stands in the way of a daemon starting. Without ``/proc/locks`` it asks whether the pid
lives.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any

from controller.core.errors import JournalError
from controller.core.section import why_not_made

LOCK_SUFFIX = ".lock"
PROC_LOCKS = "/proc/locks"


def lock_path(journal_path: str | Path) -> Path:
    """The lock file of a journal: ``<journal>.lock`` beside it."""
    path = Path(journal_path)
    return path.with_name(path.name + LOCK_SUFFIX)


@dataclass(frozen=True)
class Owner:
    """What the daemon writes in its lock file. ``started``/``stopped``: epoch seconds."""

    pid: int
    started: float
    config: str = ""
    socket: str = ""
    stopped: float | None = None


def write_owner(handle: IO[str], owner: Owner) -> None:
    """Replace the lock file's line with ``owner`` (the daemon holds the lock)."""
    handle.seek(0)
    handle.truncate()
    handle.write(json.dumps(asdict(owner)) + "\n")
    handle.flush()


def mark_stopped(handle: IO[str], owner: Owner) -> None:
    """Write ``owner`` with the stop time, just before the lock is released."""
    write_owner(handle, Owner(owner.pid, owner.started, owner.config, owner.socket,
                              time.time()))


@dataclass(frozen=True)
class DaemonState:
    """Whether a daemon writes a journal now.

    ``running``: the lock is held. ``owner``: the lock file's line (the running daemon's, or
    the last one's: ``stopped`` is None when it did not stop cleanly), or None when there is
    no lock file or it cannot be read (``problem`` says why). ``pid``: the holder's pid as
    this machine's processes see it.
    """

    running: bool
    owner: Owner | None
    pid: int | None
    problem: str = ""

    def as_json(self) -> dict[str, Any]:
        owner = self.owner
        return {"running": self.running, "pid": self.pid,
                "started": owner.started if owner else None,
                "stopped": owner.stopped if owner else None,
                "uptime_s": round(time.time() - owner.started, 1)
                if owner and self.running else None,
                "config": owner.config if owner else None,
                "socket": owner.socket if owner else None,
                "problem": self.problem or None}


def daemon_state(journal_path: str | Path) -> DaemonState:
    """Whether a daemon holds the lock of the journal at ``journal_path``, and who."""
    path = lock_path(journal_path)
    try:
        text = path.read_text(encoding="utf-8")
        stat = path.stat()
    except FileNotFoundError:
        return DaemonState(False, None, None, "no lock file: no daemon ever ran on it")
    except OSError as exc:
        return DaemonState(False, None, None, f"{path}: {exc.strerror or exc}")
    owner = _parse(text)
    holder = _flock_holder(stat.st_dev, stat.st_ino)
    if holder is None and owner is not None and owner.stopped is None and not _proc_locks():
        holder = owner.pid if _alive(owner.pid) else None
    if holder is not None:
        return DaemonState(True, owner, holder)
    return DaemonState(False, owner, None)


def _parse(text: str) -> Owner | None:
    try:
        data = json.loads(text.strip().splitlines()[-1])
        return Owner(int(data["pid"]), float(data["started"]), str(data.get("config", "")),
                     str(data.get("socket", "")),
                     None if data.get("stopped") is None else float(data["stopped"]))
    except (ValueError, KeyError, IndexError, TypeError):
        return None  # an old daemon's empty lock file, or a line cut short


def _proc_locks() -> bool:
    return os.path.exists(PROC_LOCKS)


def _flock_holder(dev: int, ino: int) -> int | None:
    """The pid holding an flock on the file (device ``dev``, inode ``ino``), from
    ``/proc/locks`` (``1: FLOCK ADVISORY WRITE 4242 fe:00:2149336 0 EOF``), or None."""
    want = f"{os.major(dev):02x}:{os.minor(dev):02x}:{ino}"
    try:
        with open(PROC_LOCKS, encoding="ascii") as locks:
            for line in locks:
                parts = line.split()
                # "N: FLOCK ADVISORY WRITE pid dev:ino ..."; a blocked waiter has "->".
                if len(parts) >= 6 and parts[1] == "FLOCK" and parts[5] == want:
                    return int(parts[4])
    except (OSError, ValueError):
        return None
    return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it lives
        return True
    return True


def lock_journal(journal_path: str) -> Any:
    """Hold an exclusive lock beside the journal for the daemon's life: a second daemon on
    the same journal stops here, before it writes anything.

    Raises:
        JournalError: another controller holds the lock, or the lock file cannot be made.
    """
    import fcntl

    if Path(journal_path).name in ("", "..") or journal_path.endswith("/"):
        raise JournalError(f"{journal_path!r}: names a folder; the journal is a file")
    path = lock_path(journal_path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "a+")  # noqa: SIM115 - held open until the daemon stops
    except OSError as exc:  # a file where its folder should be, a folder named so, no right
        raise JournalError(f"{journal_path}: cannot make the journal there: "
                           f"{why_not_made(path, exc)}") from exc
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise JournalError(f"{journal_path}: another controller is running on this "
                           "journal") from None
    return handle
