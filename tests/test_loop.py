"""The controller thread's event loop in real time."""

from __future__ import annotations


def test_loop_handles_waiting_events_before_a_later_timer() -> None:
    """A handler that stalls (a slow commit) must not let a timeout overtake an edge that
    was stamped before it and waits in the queue."""
    import threading
    import time

    from controller.core.clock import ScaledClock
    from controller.core.events import GpioEdge
    from controller.core.loop import EventLoop

    clock = ScaledClock(1.0)
    order: list[str] = []
    loop = EventLoop(clock, lambda e: None)

    def handle(event: GpioEdge) -> None:
        order.append(f"{event.input}")
        if event.input == "rotor_a":
            loop.call_at(event.t + 0.05, lambda: order.append("timer"))
            # stall while the next edge, stamped before the timer, is queued
            loop.post(GpioEdge(event.t + 0.01, "ball_a", 1))
            time.sleep(0.1)
        if event.input == "ball_a":
            loop.stop()

    loop.handler = handle  # type: ignore[assignment]
    loop.post(GpioEdge(clock.now(), "rotor_a", 1))
    runner = threading.Thread(target=loop.run_forever)
    runner.start()
    runner.join(timeout=5)
    assert order[:2] == ["rotor_a", "ball_a"]


class _JumpingClock:
    """A ScaledClock that jumps ``jump`` seconds ahead the first time a wait of the loop
    ends (what every thread sees after a SIGSTOP of the process); ``jumped`` is set."""

    def __init__(self, jump: float) -> None:
        import threading

        from controller.core.clock import ScaledClock

        self.base = ScaledClock(1.0)
        self.jump = jump
        self.offset = 0.0
        self.jumped = threading.Event()

    def now(self) -> float:
        return self.base.now() + self.offset

    def wall(self) -> float:
        return self.now()

    def to_wall(self, seconds: float) -> float:
        # The loop's first wait is where the process stops: the clock runs on meanwhile.
        if not self.jumped.is_set():
            self.offset = self.jump
            self.jumped.set()
        return seconds


def test_no_timeout_overtakes_the_edges_a_stall_delayed() -> None:
    """CONTRACT §5: the process stops while a timeout is armed; when it resumes, the edge
    stamped before the timeout (its driver resumes too) is handled first: the order is
    kept, so nothing is doubted (a loaded Pi's stalls hold no spin)."""
    import threading

    from controller.core.events import GpioEdge
    from controller.core.loop import EventLoop

    clock = _JumpingClock(jump=1.0)
    order: list[str] = []
    doubts: list[str] = []
    loop = EventLoop(clock, lambda e: None)  # type: ignore[arg-type]
    start = clock.now()
    loop.call_at(start + 0.3, lambda: order.append("timeout"))
    loop.call_at(start + 0.6, loop.stop)

    def handle(event: GpioEdge) -> None:
        order.append(event.input)

    def driver() -> None:  # resumes with the loop, posts what was due in the stall
        clock.jumped.wait(5)
        loop.post(GpioEdge(start + 0.2, "ball_a", 1))

    loop.handler = handle  # type: ignore[assignment]
    loop.on_doubt = lambda t, why: doubts.append(why)
    threading.Thread(target=driver).start()
    runner = threading.Thread(target=loop.run_forever, kwargs={"grace": 0.05})
    runner.start()
    runner.join(timeout=5)
    assert order == ["ball_a", "timeout"]
    assert doubts == []


def test_an_edge_stamped_before_a_fired_timeout_is_doubted() -> None:
    """A driver that delivers an edge after a timeout it precedes has fired (its thread
    starved, not the loop): the order was broken, the table is told."""
    import threading

    from controller.core.clock import ScaledClock
    from controller.core.events import GpioEdge
    from controller.core.loop import EventLoop

    clock = ScaledClock(1.0)
    doubts: list[tuple[float, str]] = []
    loop = EventLoop(clock, lambda e: None)
    start = clock.now()

    def fired() -> None:
        loop.post(GpioEdge(start + 0.01, "ball_a", 1))  # stamped before this timeout
        loop.call_at(start + 0.1, loop.stop)

    loop.call_at(start + 0.02, fired)
    loop.on_doubt = lambda t, why: doubts.append((t, why))
    runner = threading.Thread(target=loop.run_forever)
    runner.start()
    runner.join(timeout=5)
    assert [round(t - start, 3) for t, _ in doubts] == [0.01]
    assert "after a timeout due at" in doubts[0][1]
