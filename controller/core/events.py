"""Timestamped events posted to the controller thread.

Driver threads and the trace reader only build these and post them; the controller thread
alone acts on them. Every ``t`` is in seconds on the controller's clock (wall time in the
daemon, trace time in replay and tests).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class GpioEdge:
    """A logical input of CONTRACT §1 changed state: ``level`` 1 active, 0 inactive."""

    t: float
    input: str
    level: int


@dataclass(frozen=True, slots=True)
class SerialData:
    """Bytes that arrived on the serial port named ``port`` in the config (e.g. ``shoe``)."""

    t: float
    port: str
    data: bytes


@dataclass(frozen=True, slots=True)
class PortStatus:
    """A serial port went away (``up`` False) or came back (``up`` True)."""

    t: float
    port: str
    up: bool
    detail: str = ""


@dataclass(frozen=True, slots=True)
class DealerInput:
    """A dealer or inspector action (CONTRACT §2 ``input``), e.g. ``no_more_bets``.

    ``args`` holds its arguments (``reason``, ``box``, ``choice``, ``card``...).
    """

    t: float
    action: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class BetPlaced:
    """A bet placed on the layout (CONTRACT §2 ``bet``); ``amount`` in chips.

    ``numbers`` (roulette inside bets) are strings, "00" for double zero; ``which`` is the
    column or dozen (1-3). At a card table, ``by`` says who placed it (``holder``,
    ``seated``, ``standing``) and ``authorized`` the holder's consent
    (``controller.cards.consent``); None when not said.
    """

    t: float
    kind: str
    box: int
    amount: int
    numbers: tuple[str, ...] | None = None
    which: int | None = None
    by: str | None = None
    authorized: bool | None = None


Event = GpioEdge | SerialData | PortStatus | DealerInput | BetPlaced
