"""The controller thread: one thread owns all game state.

Driver threads call :meth:`EventLoop.post` (thread-safe) and nothing else; the loop hands
each event, in order, to the handler, and runs timers (the ball's drop timeout, the
suspended-ball wait) on the injected clock. With a :class:`VirtualClock` the same loop runs
a trace as fast as it can: timers fire at their deadlines in trace time, between events.
"""

from __future__ import annotations

import heapq
import itertools
import queue
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from controller.core.clock import Clock, VirtualClock
from controller.core.events import Event, GpioEdge, PackedEvents

STALL_SHARE = 0.4
"""A stall bound, as a share of the loop's grace: a wait that ends later than this past
its time was a stall of the process."""


@dataclass(eq=False, slots=True)
class Timer:
    """A callback due at ``deadline`` seconds of the controller clock; ``cancel()`` disarms it.

    A ``background`` timer (closing an evidence batch, sealing the journal) fires when due
    like any other but is no verdict: the loop does not wait for it to end a run.
    """

    deadline: float
    order: int
    callback: Callable[[], None]
    cancelled: bool = False
    background: bool = False

    def cancel(self) -> None:
        self.cancelled = True


_STOP = object()


@dataclass(frozen=True)
class _Reply:
    """An event whose sender waits for the handler's answer."""

    event: Event
    reply: Callable[[Any], None]


class EventLoop:
    """Serialises events and timers onto one thread.

    ``handler`` is called with each event on the loop thread; timers scheduled with
    :meth:`call_at` run there too. Exceptions from the handler propagate: the table turns
    every expected fault into an alarm record, so an exception here is a bug and must stop
    the daemon (systemd restarts it) rather than be hidden.
    """

    def __init__(self, clock: Clock, handler: Callable[[Event], Any]) -> None:
        self.clock = clock
        self._handler = handler
        # Handed a replay's packed edges as (t, input, level), without an object each
        # (:meth:`run_events`); None: edges go to ``handler`` as events.
        self.edge_handler: Callable[[float, str, int], Any] | None = None
        # A heap of (deadline, order, timer): tuples compare in C, a timer's fields would
        # not (some 20 timers a spin are armed, most cancelled before they fire).
        self._timers: list[tuple[float, int, Timer]] = []
        self._counter = itertools.count()
        self._queue: queue.Queue[object] = queue.Queue()
        # Told (on the loop thread) when an edge came after a timeout it precedes had
        # fired: ``on_doubt(t, why)`` (the table holds a spin in play).
        self.on_doubt: Callable[[float, str], None] | None = None
        self._fired_through = float("-inf")  # the latest deadline of a verdict's timer fired
        self._quiet_until = float("-inf")  # after a stall: no timeout fires before this

    @property
    def handler(self) -> Callable[[Event], Any]:
        return self._handler

    @handler.setter
    def handler(self, handler: Callable[[Event], Any]) -> None:
        """A new handler sees every event: ``edge_handler`` (set after it) is dropped."""
        self._handler = handler
        self.edge_handler = None

    # -- any thread ------------------------------------------------------------------
    def post(self, event: Event, reply: Callable[[Any], None] | None = None) -> None:
        """Hand an event to the loop (thread-safe; the only entry point for drivers).

        ``reply``, if given, is called on the loop thread with what the handler returned
        (the table's verdict on a person's input), or with the exception it raised: the
        control socket waits for it.
        """
        self._queue.put(event if reply is None else _Reply(event, reply))

    def stop(self) -> None:
        """Ask :meth:`run_forever` to return after the events already posted."""
        self._queue.put(_STOP)

    # -- loop thread -----------------------------------------------------------------
    def call_at(self, deadline: float, callback: Callable[[], None],
                background: bool = False) -> Timer:
        """Run ``callback`` on the loop thread at ``deadline`` seconds of the clock."""
        order = next(self._counter)
        timer = Timer(deadline, order, callback, background=background)
        heapq.heappush(self._timers, (deadline, order, timer))
        return timer

    def _next_timer(self) -> Timer | None:
        timers = self._timers
        while timers and timers[0][2].cancelled:
            heapq.heappop(timers)
        return timers[0][2] if timers else None

    def run_timers_until(self, t: float) -> None:
        """Fire, in deadline order, every timer due at or before ``t``.

        On a virtual clock the clock is moved to each deadline first, so a timer's records
        carry the time it was due, not the time of the next event.
        """
        clock = self.clock
        virtual = clock if isinstance(clock, VirtualClock) else None
        while (timer := self._next_timer()) is not None and timer.deadline <= t:
            heapq.heappop(self._timers)
            if virtual is not None:
                virtual.set(timer.deadline)
            if not timer.background:
                self._fired_through = max(self._fired_through, timer.deadline)
            timer.callback()

    def _next_foreground(self) -> Timer | None:
        armed = [entry for entry in self._timers
                 if not (entry[2].cancelled or entry[2].background)]
        return min(armed)[2] if armed else None

    def pending(self) -> bool:
        """A timer other than a background one is armed (a verdict may still fall due)."""
        return self._next_foreground() is not None

    def run_until_idle(self, limit: float) -> None:
        """Virtual time: after the last event, let time run on and fire the timers due, in
        order, until none but background ones is armed or the next is due after ``limit``
        (clock seconds)."""
        while (timer := self._next_foreground()) is not None and timer.deadline <= limit:
            self.run_timers_until(timer.deadline)

    def run_events(self, events: Iterable[Event]) -> None:
        """Virtual time: handle ``events`` (times non-decreasing) as fast as possible.

        Timers due after the last event do not fire here (:meth:`run_until_idle` runs
        time on).
        """
        clock = self.clock
        assert isinstance(clock, VirtualClock), "run_events needs a VirtualClock"
        if type(events) is PackedEvents and self.edge_handler is not None:
            self._run_packed(events, clock, self.edge_handler)
            return
        handler, timers = self._handler, self._timers
        for event in events:
            t = event.t
            # The heap's head has the earliest deadline. Most timers are cancelled before
            # they fall due (a ball's pass re-arms its drop timeout): popped here.
            while timers and timers[0][0] <= t:
                if not timers[0][2].cancelled:
                    self.run_timers_until(t)
                    break
                heapq.heappop(timers)
            if t > clock._now:  # clock.set(t), inline: once an event
                clock._now = t
            handler(event)

    def _run_packed(self, events: PackedEvents, clock: VirtualClock,
                    edge: Callable[[float, str, int], Any]) -> None:
        """:meth:`run_events` over a trace's packed events: each edge handed to ``edge``
        as it is packed (some 100 a spin, no object made), any other event to
        ``handler``; timers as there."""
        handler, timers = self._handler, self._timers
        times, codes, names, other, other_code = events.columns()
        name_of = [names[code >> 1] for code in range(2 * len(names))]
        for i, code in enumerate(codes):
            t = times[i]
            while timers and timers[0][0] <= t:
                if not timers[0][2].cancelled:
                    self.run_timers_until(t)
                    break
                heapq.heappop(timers)
            if t > clock._now:
                clock._now = t
            if code == other_code:
                handler(other[i])
            else:
                edge(t, name_of[code], code & 1)

    def run_forever(self, stop_at: float | None = None, grace: float = 0.0,
                    run_on: float = 0.0) -> None:
        """Real time: handle posted events and due timers until :meth:`stop`.

        A timer fires ``grace`` clock seconds after its deadline, so that an edge stamped
        just before the deadline but still in the queue (thread scheduling) is handled
        first, as it would be on trace time. ``stop_at`` (clock seconds) also ends the run
        once the clock passes it, every event posted so far has been handled and no timer
        is armed; ``run_on`` (clock seconds) bounds how long after ``stop_at`` timers are
        waited for.

        Stalls (a loaded machine, a SIGSTOP): with a ``grace``, a wait that ends more than
        ``STALL_SHARE`` × ``grace`` past its time is a stall of the process: no thread
        ran, and edges stamped in it may still be on their way, so no timeout fires until
        ``grace`` after the stall (the drivers catch up) and nothing is held: the order is
        kept. An event stamped before a timeout that has already fired (a stall that
        ended just before the timeout, a driver thread starved) is another matter: its
        order was broken, ``on_doubt`` is told and the table holds what rested on it. The
        loop wakes for nothing else: no beat, whose 120 wake-ups a second cost an idle
        table 1.7 % of a core here.
        """
        clock = self.clock
        bound = STALL_SHARE * grace
        while True:
            # Events already waiting go first, each after the timers due before it: when the
            # loop fell behind (a slow commit), a timeout must not overtake an edge that
            # came before it.
            while True:
                try:
                    waiting = self._queue.get_nowait()
                except queue.Empty:
                    break
                if waiting is _STOP:
                    return
                self._dispatch(waiting)
            seen = clock.now()
            now = seen - grace
            if seen >= self._quiet_until:
                self.run_timers_until(now)
            timer = self._next_timer()
            span = None if timer is None else max(0.0, timer.deadline - now,
                                                  self._quiet_until - seen)
            if stop_at is not None:
                end = stop_at if now < stop_at or timer is None else stop_at + run_on
                until_stop = max(0.0, end - now)
                span = until_stop if span is None else min(span, until_stop)
            wait = None if span is None else clock.to_wall(span)
            try:
                item = self._queue.get(timeout=wait)
            except queue.Empty:
                item = None
            if span is not None and bound:
                self._watch_stall(seen + span, bound, grace)
            if item is None:
                now = clock.now() - grace
                if stop_at is not None and now >= stop_at and self._queue.empty():
                    self.run_timers_until(min(now, stop_at + run_on))
                    if not self.pending() or now >= stop_at + run_on:
                        return
                continue
            if item is _STOP:
                return
            self._dispatch(item)

    def _watch_stall(self, due: float, bound: float, grace: float) -> None:
        """A wait meant to end at ``due`` (clock seconds) that ended more than ``bound``
        later: the process stalled, timeouts wait ``grace`` more for the edges it
        delayed. A stall is no doubt by itself (a loaded Pi stalls for milliseconds
        often): only an edge that still comes after its timeout is (``_dispatch``)."""
        now = self.clock.now()
        if now - due > bound:
            self._quiet_until = now + grace

    def _doubt(self, t: float, why: str) -> None:
        if self.on_doubt is not None:
            self.on_doubt(t, why)

    def _dispatch(self, item: object) -> None:
        """Handle one queued event, after the timers due before it; answer its sender."""
        if isinstance(item, GpioEdge) and item.t < self._fired_through:
            self._doubt(item.t, f"{item.input} edge stamped {item.t:.3f} s reached the "
                        f"controller after a timeout due at {self._fired_through:.3f} s "
                        "had fired")
        if isinstance(item, _Reply):
            self.run_timers_until(item.event.t)
            try:
                answer = self._handler(item.event)
            except BaseException as exc:
                item.reply(exc)  # the sender learns it failed; the loop stops (a bug, or
                raise  # a journal that cannot be written)
            item.reply(answer)
            return
        event: Event = item  # type: ignore[assignment]
        self.run_timers_until(event.t)
        self._handler(event)


def start_thread(target: Callable[[], None], name: str) -> threading.Thread:
    """Start a daemon thread (the loop or a player) and return it."""
    thread = threading.Thread(target=target, name=name, daemon=True)
    thread.start()
    return thread
