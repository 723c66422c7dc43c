"""The daemon's components and their lifecycle: start in order, stop in reverse, each stop
guarded on its own (Klipper's ``invoke_shutdown``, Moonraker's components), so a failing
serial close can never skip closing the journal.

A component has a ``name``, ``start()``, ``stop()`` and ``alive()``; ``alive()`` of all of
them is what the watchdog is told about.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from controller.core.logs import get_logger


class Component(Protocol):
    """One part of the running daemon (the journal, the pins, a port, the control socket)."""

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def alive(self) -> bool: ...


@dataclass
class Hooks:
    """A component made of plain callables (for parts that are not objects of their own)."""

    on_start: Callable[[], None] = lambda: None
    on_stop: Callable[[], None] = lambda: None
    is_alive: Callable[[], bool] = lambda: True

    def start(self) -> None:
        self.on_start()

    def stop(self) -> None:
        self.on_stop()

    def alive(self) -> bool:
        return self.is_alive()


@dataclass
class Lifecycle:
    """Components by name, started in the order added and stopped in reverse.

    ``start`` stops whatever it had started when one component fails to start, then raises
    that failure. ``stop`` stops every started component even when some fail: each failure
    is logged with the component's name and the first is raised once all are stopped.
    """

    components: list[tuple[str, Any]] = field(default_factory=list)
    started: list[tuple[str, Any]] = field(default_factory=list)
    failed: tuple[str, BaseException] | None = None  # the component that did not start

    def add(self, name: str, component: Component) -> Component:
        self.components.append((name, component))
        return component

    def start(self) -> None:
        for name, component in self.components:
            try:
                component.start()
            except BaseException as exc:
                self.failed = (name, exc)  # before the stop: the components stopped see it
                self.stop(raise_first=False)
                raise
            self.started.append((name, component))

    def stop(self, raise_first: bool = True) -> None:
        log = get_logger(component="lifecycle")
        first: BaseException | None = None
        while self.started:
            name, component = self.started.pop()
            try:
                component.stop()
            except Exception as exc:
                log.error("component did not stop cleanly", name=name, error=str(exc))
                first = first or exc
        if first is not None and raise_first:
            raise first

    def alive(self) -> dict[str, bool]:
        """Each started component's health; the daemon is healthy when all are True."""
        return {name: bool(component.alive()) for name, component in self.started}
