"""Timestamped events posted to the controller thread.

Driver threads and the trace reader only build these and post them; the controller thread
alone acts on them. Every ``t`` is in seconds on the controller's clock (wall time in the
daemon, trace time in replay and tests).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, overload


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

    ``fields`` are what the bet says besides its kind, box and amount: the fields its
    game's bet kinds declare (``GameSpec.bet_fields``, which the trace reader checks), a
    list as a tuple; a field not said is not there.
    """

    t: float
    kind: str
    box: int
    amount: int
    fields: Mapping[str, Any] = field(default_factory=dict)

    def get(self, name: str) -> Any:
        """The bet's field ``name``, or None when the bet does not say it."""
        return self.fields.get(name)

    def input(self) -> dict[str, Any]:
        """Every field of the bet input but its time, as the journal holds it (a list as
        a list): ``kind``, ``box``, ``amount`` and its own fields. The journal holds each
        bet input once: in its game's bet record, or in the alarm that refused it."""
        return {"kind": self.kind, "box": self.box, "amount": self.amount,
                **{k: list(v) if isinstance(v, tuple) else v for k, v in self.fields.items()}}


def bet_of(t: float, given: Mapping[str, Any], names: Iterable[str]) -> BetPlaced:
    """The bet input at ``t`` that :meth:`BetPlaced.input` journaled (a bet record, or
    the ``bet`` of the alarm that refused it); ``names``: its game's bet fields."""
    fields = {name: tuple(value) if isinstance(value, list) else value
              for name in names if (value := given.get(name)) is not None}
    return BetPlaced(t, given["kind"], given["box"], given["amount"], fields)


Event = GpioEdge | SerialData | PortStatus | DealerInput | BetPlaced


class PackedEvents(Sequence[Event]):
    """Events in time order, kept small: a trace of 10,000 spins holds about a million
    GPIO edges, and an edge object costs some 100 bytes where its time (a double) and its
    input and level (two bytes) are all it says. Edges are packed so; any other event is
    kept as it is. Reading gives the same events back (each edge made anew)."""

    _OTHER = 0xFFFF  # the code of an event that is not an edge

    def __init__(self, events: Iterable[Event] = ()) -> None:
        self._t = array("d")
        self._code = array("H")
        self._other: dict[int, Event] = {}
        self._names: list[str] = []
        self._twice: dict[str, int] = {}
        for event in events:
            self.append(event)

    def append(self, event: Event) -> None:
        if type(event) is GpioEdge:
            self.append_edge(event.t, event.input, event.level)
            return
        self._other[len(self._t)] = event
        self._code.append(self._OTHER)
        self._t.append(event.t)

    def append_edge(self, t: float, name: str, level: int) -> None:
        """Append ``GpioEdge(t, name, level)`` (without making it)."""
        self._code.append(self._doubled(name) + level)
        self._t.append(t)

    def _doubled(self, name: str) -> int:
        """Twice the index of input ``name`` (given one on its first edge): an edge's code
        is that plus its level."""
        twice = self._twice.get(name)
        if twice is None:
            twice = self._twice[name] = 2 * len(self._names)
            self._names.append(name)
        return twice

    def __len__(self) -> int:
        return len(self._t)

    def columns(self) -> tuple[array[float], array[int], list[str], dict[int, Event], int]:
        """The packed columns, for a reader that wants no object an edge: per event its
        time and its code (``2 × input index + level`` for an edge), the input names by
        index, the other events by position, and the code that marks one of them."""
        return self._t, self._code, self._names, self._other, self._OTHER

    def _at(self, i: int) -> Event:
        code = self._code[i]
        if code == self._OTHER:
            return self._other[i]
        return GpioEdge(self._t[i], self._names[code >> 1], code & 1)

    @overload
    def __getitem__(self, i: int) -> Event: ...
    @overload
    def __getitem__(self, i: slice) -> list[Event]: ...

    def __getitem__(self, i: int | slice) -> Event | list[Event]:
        if isinstance(i, slice):
            return [self._at(j) for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError("event index out of range")
        return self._at(i)

    def __iter__(self) -> Iterator[Event]:
        names, other, t_of = self._names, self._other, self._t
        # A frozen dataclass's __init__ sets each field through object.__setattr__; the
        # slots' own setters make the same edge in half the time (a replay makes some
        # 100 a spin).
        make = object.__new__
        set_t, set_input, set_level = _EDGE_SLOTS
        for i, code in enumerate(self._code):
            if code == self._OTHER:
                yield other[i]
            else:
                edge = make(GpioEdge)
                set_t(edge, t_of[i])
                set_input(edge, names[code >> 1])
                set_level(edge, code & 1)
                yield edge


_EDGE_SLOTS = tuple(getattr(GpioEdge, name).__set__ for name in ("t", "input", "level"))
