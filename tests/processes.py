"""Stopping a process a test started (a display, a feed, a floor): a signal, then the wait
for its end. One that outlasts the wait is killed, so that a failing test leaves no process
behind, and the test fails saying so."""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Callable
from typing import Any


def stopped(proc: subprocess.Popen[Any], sig: int | None = signal.SIGTERM,
            timeout: float = 60.0, kill: Callable[[], None] | None = None
            ) -> tuple[int, Any]:
    """Send ``sig`` to ``proc`` (none if it ended, or if ``sig`` is None: it ends by itself)
    and wait for its end; (its exit code, its stderr when piped, else None).

    Raises:
        AssertionError: it outlasted ``timeout`` s; it was killed first, by ``kill`` (what
            kills it and what it started) or else with SIGKILL.
    """
    if sig is not None and proc.poll() is None:
        proc.send_signal(sig)
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        (kill or proc.kill)()
        _, err = proc.communicate()
        what = signal.Signals(sig).name if sig is not None else "the wait began"
        raise AssertionError(f"{proc.args!r} still ran {timeout} s after {what}: killed; "
                             f"its stderr: {err!r}") from None
    return proc.returncode, err
