"""Traces (CONTRACT §2): JSON Lines of timestamped events, read strictly, written compactly.

A trace is read and checked whole before anything of it is played, so a bad line stops a
replay with one error naming the file, line and field, and nothing of it reaches the
journal. What a line may name (inputs, bet kinds and their fields, dealer actions) comes
from the games it is handed: the table of the trace's ``meta`` gives its bet kinds and
their fields (``GameSpec.bet_fields``); every game's inputs and actions are known words (a
game refuses, with an alarm, what it does not take).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from controller.core.config import BUTTON_INPUTS, Config
from controller.core.contract import BetField
from controller.core.errors import TraceError
from controller.core.events import BetPlaced, DealerInput, Event, GpioEdge, PackedEvents, SerialData
from controller.core.specs import Games
from controller.core.words import given, one_of
from controller.trace_lines import items

_EVENT_KEYS = ("meta", "gpio", "serial", "input", "bet")
_RESERVED = frozenset({"type", "seq", "action"})
# RFC 8259 §6: integers beyond ±(2^53 - 1) are not interoperable (not exact in a double).
# A trace's times, boxes, amounts and choices stay within it: a larger value is bad input.
MAX_INT = 2**53 - 1
_MAX_T = float(MAX_INT)
# No field of a trace line is deeper than a list in an object; anything nested deeper than
# this is refused before any code recurses into it (no RecursionError anywhere later).
MAX_DEPTH = 16


@dataclass
class Trace:
    """A checked trace: its ``meta`` (first line, may be empty) and its events in order;
    ``first_lines`` the line where each GPIO input or serial port first appears
    (``("gpio", "ball_a")`` or ``("serial", "wheel")`` -> line number)."""

    path: str
    meta: dict[str, Any] = field(default_factory=dict)
    events: PackedEvents = field(default_factory=PackedEvents)
    first_lines: dict[tuple[str, str], int] = field(default_factory=dict)

    @property
    def duration(self) -> float:
        return self.events[-1].t if self.events else 0.0


def read_trace(path: str, games: Games, serial_ports: Iterable[str] | None = None, *,
               and_games: bool = False) -> Trace:
    """Read and check a whole trace file against ``games`` (the games its ``meta.table``
    may name); the serial ports it may give as :func:`trace_from_objects`.

    The file is read a chunk of lines at a time and its events kept packed
    (:class:`~controller.core.events.PackedEvents`), so memory follows the events, not
    the file's text.

    Raises:
        TraceError: the file cannot be read, or a line is not a JSON object, gives a key
            twice (the field named is that key), lacks ``t``,
            goes back in time, has no or two event keys, names an unknown input, port, bet
            kind or dealer action, has something else than a string where a name goes, a
            field nested more than ``MAX_DEPTH`` levels, a time, box or amount beyond
            ``MAX_INT``, or a field of the wrong type; names file, line, field.
    """
    try:
        handle = open(path, "rb")  # noqa: SIM115 (closed by the generator below)
    except OSError as exc:
        raise TraceError(path, None, None, f"cannot read trace: {exc}") from exc
    return trace_from_objects(path, items(path, handle), games, serial_ports,
                              and_games=and_games)


def trace_from_objects(path: str, objects: Iterable[tuple[int, Any]], games: Games,
                       serial_ports: Iterable[str] | None = None, *,
                       and_games: bool = False) -> Trace:
    """Check trace objects (line number, decoded JSON) as :func:`read_trace` does. The serial
    ports a line may name: ``serial_ports`` (and with ``and_games``, or when None, every
    game's).

    The simulators' output goes through here too, so it meets the same contract.

    Raises:
        TraceError: as :func:`read_trace`.
    """
    trace = Trace(path)
    checker = _Checker(trace, games, frozenset(serial_ports or ()),
                       and_games or serial_ports is None)
    line = checker.line
    for number, obj in objects:
        line(number, obj)
    return trace


class _Checker:
    """The checks of :func:`trace_from_objects`, line after line, on one trace."""

    def __init__(self, trace: Trace, games: Games, ports: frozenset[str],
                 and_games: bool) -> None:
        self.trace, self.games = trace, games
        self.ports = _Ports(ports, and_games)
        self.words = _words(games, games.default_name)  # until a meta line names the table
        self.last_t = 0.0

    def line(self, number: int, obj: Any) -> None:
        """One line's decoded JSON."""
        trace, path, last_t = self.trace, self.trace.path, self.last_t
        first = trace.first_lines
        # Fast path for the bulk of a trace: a well-formed GPIO change.
        if type(obj) is dict and len(obj) == 3 and "gpio" in obj:
            t, name, level = obj.get("t"), obj["gpio"], obj.get("level")
            if ((type(t) is float or type(t) is int) and last_t <= t <= _MAX_T
                    and type(name) is str and name in self.words.gpio
                    and type(level) is int and 0 <= level <= 1):
                self.last_t = t
                trace.events.append_edge(float(t), name, level)
                if ("gpio", name) not in first:
                    first["gpio", name] = number
                return
        if not isinstance(obj, dict):
            raise TraceError(path, number, None, "not a JSON object")
        line = _Line(path, number, obj)
        line.not_too_deep()
        t = line.number("t")
        if t < last_t:
            raise TraceError(path, number, "t", f"{t} goes back in time (previous {last_t})")
        self.last_t = t
        keys = [k for k in _EVENT_KEYS if k in obj]
        if len(keys) != 1:
            found = ", ".join(keys) or "none"
            raise TraceError(path, number, None,
                             f"needs exactly one of {', '.join(_EVENT_KEYS)}; found {found}")
        kind = keys[0]
        if kind == "meta":
            self._meta(line, obj["meta"])
            return
        table = str(trace.meta.get("table", self.games.default_name))
        event = _event(line, kind, t, table, self.ports, self.words)
        trace.events.append(event)
        if isinstance(event, GpioEdge | SerialData):
            key = ("gpio", event.input) if isinstance(event, GpioEdge) else ("serial", event.port)
            first.setdefault(key, number)

    def _meta(self, line: _Line, meta: Any) -> None:
        trace = self.trace
        if trace.events or trace.meta:
            raise line.error("meta", "meta is allowed on the first line only")
        if not isinstance(meta, dict):
            raise line.error("meta", "must be an object")
        line.only("t", "meta")
        table = meta.get("table", self.games.default_name)
        if table not in self.games:
            raise line.error("meta.table", f"{show(table)} is not one of "
                             f"{', '.join(self.games.names)}")
        trace.meta = meta
        self.words = _words(self.games, table)


def check_fits(trace: Trace, config: Config) -> None:
    """Refuse a trace that gives inputs of the config's game that the table of ``config``
    does not read with its settings, and none that it reads (e.g. sensor edges only, for a
    table configured to read the same equipment over serial): played, each would be an
    alarm and the game would never run; the trace was written for another setting of the
    table. A stray input among those the table reads stays what it is live: an alarm.
    Bytes on a serial port its game has none of (``wheel`` at a card table) are refused
    whatever else the trace gives: no table of that game reads them, live or not
    (hardware.md §4).

    Raises:
        TraceError: names the trace's first line with such an input, its field (``gpio``
            or ``serial``), what the config reads instead.
    """
    spec = config.spec
    for (kind, name), number in sorted(trace.first_lines.items(), key=lambda item: item[1]):
        if kind == "serial" and name not in spec.serial_ports:
            raise TraceError(trace.path, number, "serial",
                             f"a {spec.title} table reads no port {name!r} (its ports: "
                             f"{', '.join(spec.serial_ports) or 'none'}): the trace was "
                             "written for another table")
    reads = {*(("gpio", n) for n in spec.gpio(config)),
             *(("serial", p) for p in spec.ports(config))}
    own = {*(("gpio", n) for n in spec.gpio_inputs), *(("serial", p) for p in spec.serial_ports)}
    if reads & trace.first_lines.keys():
        return
    for (kind, name), number in sorted(trace.first_lines.items(), key=lambda item: item[1]):
        if (kind, name) in own and (kind, name) not in reads:
            what = "GPIO input" if kind == "gpio" else "serial port"
            read = ", ".join([*(f"GPIO {n}" for n in spec.gpio(config)),
                              *(f"serial port {p}" for p in spec.ports(config))])
            raise TraceError(trace.path, number, kind,
                             f"{name!r}: the {spec.title} table of {config.source} does not "
                             f"read this {what} with its settings (it reads "
                             f"{read or 'none of its own'}): the trace was written for "
                             "another setting; replay it with a config that reads it, or "
                             "give the setting in the trace's meta (line 1)")


class _Words:
    """What a trace line may name: its table's own GPIO inputs (and every table's
    buttons), dealer actions, serial ports, bet kinds and their fields; an input, action
    or port that its own game does not have is looked for in every game's (each loaded
    then: :func:`_every`), since a game refuses, with an alarm, what it does not take."""

    def __init__(self, games: Games, table: str) -> None:
        spec = games.spec(table)
        self.games = games
        self.gpio = frozenset([*spec.gpio_inputs, *BUTTON_INPUTS])
        self.actions = frozenset(spec.input_actions)
        self.ports = frozenset(spec.serial_ports)
        self.bets: tuple[str, ...] = spec.bet_kinds
        self.bet_fields = {f.name: f for f in spec.bet_fields}

    def every(self) -> _Every:
        return _every(self.games)

    def gpio_known(self, name: str) -> bool:
        return name in self.gpio or name in self.every().gpio

    def action_known(self, action: str) -> bool:
        return action in self.actions or action in self.every().actions

    def port_known(self, port: str) -> bool:
        return port in self.ports or port in self.every().ports


@dataclass(frozen=True)
class _Every:
    """Every game's GPIO inputs (in their order), dealer actions and serial ports."""

    gpio_order: tuple[str, ...]
    gpio: frozenset[str]
    actions: frozenset[str]
    ports: frozenset[str]


@cache
def _words(games: Games, table: str) -> _Words:
    return _Words(games, table)


@cache
def _every(games: Games) -> _Every:
    specs = list(games)
    order = tuple(dict.fromkeys([n for s in specs for n in s.gpio_inputs] + list(BUTTON_INPUTS)))
    return _Every(order, frozenset(order), frozenset(a for s in specs for a in s.input_actions),
                  frozenset(p for s in specs for p in s.serial_ports))


def write_trace(path: str | os.PathLike[str], objects: Sequence[dict[str, Any]]) -> None:
    """Write trace objects as JSON Lines (CONTRACT §2): compact, times rounded to µs."""
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for obj in objects:
            line = {**obj, "t": round(obj["t"], 6)}
            out.write(json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n")


def show(value: Any, limit: int = 60) -> str:
    """``value`` as the trace or request gave it (:func:`controller.core.words.given`), for
    one-line error messages."""
    return given(value, limit)


def depth(value: Any, limit: int = MAX_DEPTH) -> int:
    """How deep ``value`` nests lists and objects (a scalar is 0), counted without recursion
    and only up to ``limit + 1``: enough to tell that it is too deep."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            level += 1
            deepest = max(deepest, level)
            if level > limit:
                return level
            stack.extend((x, level) for x in (item.values() if isinstance(item, dict) else item))
    return deepest



_TYPE_WORDS = {str: "a string", int: "a whole number", bool: "true or false"}


def _fits(value: Any, spec: BetField) -> bool:
    """``value`` is one value of the bet field ``spec``: of its type (a whole number within
    ``MAX_INT``, never a boolean), one of its choices when it has some."""
    if spec.type is int:
        typed = type(value) is int and -MAX_INT <= value <= MAX_INT
    else:
        typed = isinstance(value, spec.type)
    return typed and (not spec.choices or value in spec.choices)


class _Line:
    def __init__(self, path: str, number: int, obj: dict[str, Any]) -> None:
        self.path, self.n, self.obj = path, number, obj

    def error(self, fld: str | None, message: str) -> TraceError:
        return TraceError(self.path, self.n, fld, message)

    def not_too_deep(self) -> None:
        """Raise if a field nests lists or objects more than ``MAX_DEPTH`` levels deep."""
        for key, value in self.obj.items():
            if depth(value) > MAX_DEPTH:
                raise self.error(key, f"nested more than {MAX_DEPTH} levels deep")

    def number(self, key: str) -> float:
        value = self.obj.get(key)
        # NaN fails the comparison too; a huge integer compares exactly, never overflows.
        if (isinstance(value, bool) or not isinstance(value, int | float)
                or not -_MAX_T <= value <= _MAX_T):
            raise self.error(key, f"must be a finite number of seconds up to {MAX_INT}, "
                             f"got {show(value)}")
        if value < 0:
            raise self.error(key, f"must not be negative, got {given(value)}")
        return float(value)

    def integer(self, key: str, lo: int) -> int:
        value = self.obj.get(key)
        if (isinstance(value, bool) or not isinstance(value, int)
                or not lo <= value <= MAX_INT):
            # The bound crossed, said (a box below 1 is not told of 2**53).
            bound = (f"at most {MAX_INT}" if isinstance(value, int) and value > MAX_INT
                     else f"at least {lo}")
            raise self.error(key, f"must be a whole number, {bound}, got {show(value)}")
        return value

    def name(self, key: str) -> str:
        """The value of ``key`` where a name is expected (an input, a port, a bet kind)."""
        value = self.obj[key]
        if not isinstance(value, str):
            raise self.error(key, f"must be a name (a string), got {show(value)}")
        return value

    def bet_field(self, spec: BetField) -> Any:
        """The value of a bet's field as its game declares it (``spec``): a list of values
        when ``many`` (returned as a tuple), each of its ``type`` and one of its
        ``choices`` when it has some."""
        value = self.obj[spec.name]
        fits = (isinstance(value, list) and all(_fits(v, spec) for v in value) if spec.many
                else _fits(value, spec))
        if not fits:
            each = f"one of {one_of(spec.choices)}" if spec.choices else _TYPE_WORDS[spec.type]
            shape = f"a list, each {each}" if spec.many else each
            raise self.error(spec.name, f"must be {shape}: {spec.kind}; got {show(value)}")
        return tuple(value) if spec.many else value

    def only(self, *allowed: str) -> None:
        for key in self.obj:
            if key not in allowed:
                raise self.error(key, "unknown field")


@dataclass(frozen=True)
class _Ports:
    """The serial ports a trace line may name: ``given``, and every game's too with
    ``and_games``."""

    given: frozenset[str]
    and_games: bool

    def known(self, port: str, words: _Words) -> bool:
        return port in self.given or (self.and_games and words.port_known(port))

    def named(self, words: _Words) -> str:
        every = self.given | (words.every().ports if self.and_games else frozenset())
        return ", ".join(sorted(every)) or "none"


def _event(line: _Line, kind: str, t: float, table: str, ports: _Ports,
           words: _Words) -> Event:
    obj = line.obj
    if kind == "gpio":
        name = line.name("gpio")
        if not words.gpio_known(name):
            raise line.error("gpio", f"unknown input {name!r}; inputs are "
                             f"{', '.join(words.every().gpio_order)}")
        level = obj.get("level")
        if level not in (0, 1) or isinstance(level, bool):
            raise line.error("level", f"must be 0 or 1, got {show(level)}")
        line.only("t", "gpio", "level")
        return GpioEdge(t, name, int(level))
    if kind == "serial":
        port = line.name("serial")
        if not ports.known(port, words):
            raise line.error("serial", f"unknown port {port!r}; configured: "
                             f"{ports.named(words)}")
        line.only("t", "serial", "text", "hex")
        if ("text" in obj) == ("hex" in obj):
            raise line.error("text", "needs exactly one of text or hex")
        if "text" in obj:
            text = obj["text"]
            if not isinstance(text, str):
                raise line.error("text", "must be a string")
            try:
                data = text.encode("latin-1")
            except UnicodeEncodeError as exc:
                raise line.error("text", f"character beyond U+00FF at {exc.start}") from exc
        else:
            try:
                data = bytes.fromhex(str(obj["hex"]))
            except ValueError as exc:
                raise line.error("hex", f"not hexadecimal: {exc}") from exc
        return SerialData(t, port, data)
    if kind == "input":
        action = line.name("input")
        if not words.action_known(action):
            raise line.error("input", f"unknown dealer input {action!r}")
        for key in obj:
            if key in _RESERVED:
                raise line.error(key, "a dealer input's argument may not be named "
                                 f"{key!r} (a field of every record)")
        return DealerInput(t, action, {k: v for k, v in obj.items() if k not in ("t", "input")})
    # a bet
    kinds = words.bets
    bet_kind = line.name("bet")
    if bet_kind not in kinds:
        raise line.error("bet", f"unknown bet kind {bet_kind!r} for {table}; kinds: "
                         f"{', '.join(kinds)}")
    fields = words.bet_fields
    line.only("t", "bet", "box", "amount", *fields)
    given = {name: line.bet_field(spec) for name, spec in fields.items()
             if obj.get(name) is not None}  # null: not said
    return BetPlaced(t, bet_kind, line.integer("box", 1), line.integer("amount", 1), given)
