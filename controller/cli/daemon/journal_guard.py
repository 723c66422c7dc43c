"""A journal that cannot be written (a full disk, a read-only file system, an I/O error).

Durability (project standards): a record is journaled before anything acts on it, so when
a write fails the table must not act on the event that caused it, nor on anything after it.
The daemon wraps the table's handler and the game's timers in a :class:`JournalGuard`: the
first :class:`~controller.core.errors.JournalError` puts the table in the **journal
failing** state. From then on no event reaches the game: every person's input and bet
(``open_bets`` among them: no new game) is refused with the verdict ``journal_failing``,
sensor edges and shoe bytes are dropped and counted, the game's timers do nothing (a
verdict needs its evidence journaled). What the journal holds stays as it is: the records
written before the failure are committed and hash-chained.

Every ``RETRY_S`` seconds the guard tries to journal an ``alarm`` (``journal_failing``) that
says since when the journal failed, why, and what was not taken. Once that write succeeds
the journal works again, but the game's state may be ahead of it (the record that failed
was part of an event half done), so the guard asks the daemon to restart (exit
``EXIT_RESTART``): systemd starts it again and it rebuilds the table from the journal, as
after a power cut (a spin in play is voided as interrupted, a card table replays its
inputs).

The watchdog is not withheld: the daemon is alive and doing the one right thing (refusing);
a restart cannot free the disk, and a restart loop would end at the unit's start limit with
no daemon to answer ``tablectl``. The status line (``systemctl status``, ``tablectl
status``) starts with ``JOURNAL FAILING``, and the failure is logged at error level.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from controller.core.contract import Emit, Schedule, TimerHandle, Verdict
from controller.core.errors import JournalError
from controller.core.events import BetPlaced, DealerInput, Event
from controller.core.logs import get_logger
from controller.store.shared import Alarm

RETRY_S = 5.0  # seconds of the controller clock between two tries of the alarm
EXIT_RESTART = 75  # EX_TEMPFAIL: the journal came back; restart to recover from it


class JournalGuard:
    """The journal-failing state of a daemon's table (see the module doc).

    Args:
        now: the controller clock (seconds).
        on_back: called on the loop thread once the alarm is journaled (the daemon stops
            and exits ``EXIT_RESTART``).
        on_change: called when the table starts failing (the status line is resent).

    The composition root :meth:`bind` s it to the loop's own timer (for the retries) and
    the table's ``emit`` once both are made (the table's game takes the guarded timer).
    """

    def __init__(self, now: Callable[[], float], on_back: Callable[[], None] = lambda: None,
                 on_change: Callable[[], None] = lambda: None) -> None:
        self._call_at: Schedule | None = None
        self.now = now
        self.on_back = on_back
        self.on_change = on_change
        self.emit: Emit | None = None
        self.failing: str | None = None
        self.writable_again = False  # the alarm was written: the shutdown record may be
        self.since_wall: float | None = None
        self.dropped = 0
        self.refused = 0
        self.log = get_logger(component="journal")

    def bind(self, call_at: Schedule, emit: Emit) -> None:
        """The loop's timer (unguarded: the retries run while failing) and the table's
        ``emit``."""
        self._call_at = call_at
        self.emit = emit

    def handler(self, handle: Callable[[Event], Verdict | None]
                ) -> Callable[[Event], Verdict | None]:
        """``handle`` (the table's), refusing everything while the journal fails."""
        def guarded(event: Event) -> Verdict | None:
            if self.failing is None:
                try:
                    return handle(event)
                except JournalError as exc:
                    self.fail(exc)
            return self._not_taken(event)

        return guarded

    def schedule(self, call_at: Schedule) -> Schedule:
        """``call_at`` whose callbacks do nothing while the journal fails, and put the table
        in that state when their own write fails."""
        def guarded_call_at(deadline: float, callback: Callable[[], None],
                            *args: Any) -> TimerHandle:
            def run() -> None:
                if self.failing is not None:
                    return
                try:
                    callback()
                except JournalError as exc:
                    self.fail(exc)

            return call_at(deadline, run, *args)

        return guarded_call_at

    def problem(self) -> str | None:
        """``JOURNAL FAILING (...)`` for the status line, or None."""
        if self.failing is None:
            return None
        return (f"JOURNAL FAILING ({self.failing}): no game, bet or input taken; "
                f"{self.dropped} hardware events and {self.refused} requests not taken")

    def fail(self, exc: JournalError) -> None:
        """Enter the journal-failing state (once), log it and arm the first retry."""
        if self.failing is not None:
            return
        self.failing = str(exc)
        self.since_wall = time.time()
        self.log.error("journal failing", error=self.failing,
                       effect="no new game, bet or input is taken; the journal keeps what "
                              f"it has; retried every {RETRY_S:g} s")
        self.on_change()
        self._arm()

    def _arm(self) -> None:
        assert self._call_at is not None, "bind() the guard to the loop first"
        self._call_at(self.now() + RETRY_S, self._retry)

    def _not_taken(self, event: Event) -> Verdict | None:
        if isinstance(event, DealerInput | BetPlaced):
            self.refused += 1
            return Verdict(False, "journal_failing",
                           f"the journal cannot be written ({self.failing}): nothing is "
                           "taken until it can; nothing was done")
        self.dropped += 1
        return None

    def _retry(self) -> None:
        assert self.emit is not None and self.since_wall is not None
        gone = time.time() - self.since_wall
        try:
            self.emit(Alarm(code="journal_failing",
                            message=f"the journal could not be written for {gone:.0f} s "
                            f"({self.failing}); {self.dropped} hardware events and "
                            f"{self.refused} requests were not taken meanwhile; the daemon "
                            "restarts to rebuild the table from the journal",
                            dropped=self.dropped))
        except JournalError:
            self._arm()
            return
        self.writable_again = True
        self.log.warning("journal writable again", effect="restarting to recover the table")
        self.on_back()
