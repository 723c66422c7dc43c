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
