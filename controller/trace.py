"""Traces (CONTRACT §2): JSON Lines of timestamped events, read strictly, written compactly.

A trace is read and checked whole before anything of it is played, so a bad line stops a
replay with one error naming the file, line and field, and nothing of it reaches the
journal. What a line may name (inputs, bet kinds, dealer actions) comes from the games'
specs (the :class:`~controller.core.specs.Games` the reader is handed): the table of the
trace's ``meta`` gives its bet kinds; every game's inputs and actions are known words (a
game refuses, with an alarm, what it does not take).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, BinaryIO

from controller.core.config import BUTTON_INPUTS, Config
from controller.core.contract import BetField
from controller.core.errors import TraceError
from controller.core.events import BetPlaced, DealerInput, Event, GpioEdge, PackedEvents, SerialData
from controller.core.specs import Games
from controller.core.words import given, one_of

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


def read_trace(path: str, games: Games, serial_ports: Iterable[str] | None = None) -> Trace:
    """Read and check a whole trace file against ``games`` (the games its ``meta.table``
    may name; ``serial_ports``: the ports it may give, by default every game's).

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
    return trace_from_objects(path, _objects(path, handle), games, serial_ports)


_CHUNK = 4096  # lines parsed at a time


def _objects(path: str, handle: BinaryIO) -> Iterator[tuple[int, Any]]:
    """(line number, decoded JSON) of each line of the file that is not blank."""
    with handle:
        number = 0
        chunk: list[tuple[int, str]] = []
        try:
            for raw in handle:
                number += 1
                try:
                    # Lines end at "\n" only: U+0085 and U+2028 are characters in strings.
                    line = raw.decode("utf-8").removesuffix("\n").removesuffix("\r")
                except UnicodeDecodeError as exc:
                    raise TraceError(path, number, None, f"not UTF-8: {exc.reason} at byte "
                                     f"{handle.tell() - len(raw) + exc.start}") from exc
                if line.strip():
                    chunk.append((number, line))
                if len(chunk) >= _CHUNK:
                    yield from _decode(path, chunk)
                    chunk = []
        except OSError as exc:
            raise TraceError(path, None, None, f"cannot read trace: {exc}") from exc
        yield from _decode(path, chunk)


def _decode(path: str, numbered: list[tuple[int, str]]) -> list[tuple[int, Any]]:
    try:
        # One parse of many lines is several times faster than a parse per line.
        decoded = loads_strict("[" + ",".join(line for _, line in numbered) + "]")
        return [(number, obj) for (number, _), obj in zip(numbered, decoded, strict=True)]
    except (ValueError, RecursionError):
        pass
    objects = []
    for number, line in numbered:
        try:
            objects.append((number, loads_strict(line)))
        except DuplicateKey as exc:
            raise TraceError(path, number, exc.key, str(exc)) from exc
        except (ValueError, RecursionError) as exc:
            why = "nested too deep" if isinstance(exc, RecursionError) else str(exc)
            raise TraceError(path, number, None, f"not JSON: {why}") from exc
        if not isinstance(objects[-1][1], dict):
            raise TraceError(path, number, None, "not a JSON object") from None
    # Every line parses alone: the many-line parse only went one level too deep.
    return objects


def trace_from_objects(path: str, objects: Iterable[tuple[int, Any]], games: Games,
                       serial_ports: Iterable[str] | None = None) -> Trace:
    """Check trace objects (line number, decoded JSON) as :func:`read_trace` does.

    The simulators' output goes through here too, so it meets the same contract.

    Raises:
        TraceError: as :func:`read_trace`.
    """
    trace = Trace(path)
    words = _words(games)
    ports = set(serial_ports if serial_ports is not None else words.ports)
    gpio_names = words.gpio
    last_t = 0.0
    events = trace.events
    first = trace.first_lines
    for number, obj in objects:
        # Fast path for the bulk of a trace: a well-formed GPIO change.
        if type(obj) is dict and len(obj) == 3 and "gpio" in obj:
            t, name, level = obj.get("t"), obj["gpio"], obj.get("level")
            if ((type(t) is float or type(t) is int) and last_t <= t <= _MAX_T
                    and type(name) is str and name in gpio_names
                    and type(level) is int and 0 <= level <= 1):
                last_t = t
                events.append(GpioEdge(float(t), name, level))
                if ("gpio", name) not in first:
                    first["gpio", name] = number
                continue
        if not isinstance(obj, dict):
            raise TraceError(path, number, None, "not a JSON object")
        line = _Line(path, number, obj)
        line.not_too_deep()
        t = line.number("t")
        if t < last_t:
            raise TraceError(path, number, "t", f"{t} goes back in time (previous {last_t})")
        last_t = t
        keys = [k for k in _EVENT_KEYS if k in obj]
        if len(keys) != 1:
            found = ", ".join(keys) or "none"
            raise TraceError(path, number, None,
                             f"needs exactly one of {', '.join(_EVENT_KEYS)}; found {found}")
        kind = keys[0]
        if kind == "meta":
            if trace.events or trace.meta:
                raise TraceError(path, number, "meta", "meta is allowed on the first line only")
            meta = obj["meta"]
            if not isinstance(meta, dict):
                raise TraceError(path, number, "meta", "must be an object")
            line.only("t", "meta")
            table = meta.get("table", games.default.name)
            if table not in games:
                raise TraceError(path, number, "meta.table", f"{show(table)} is not one of "
                                 f"{', '.join(games.names)}")
            trace.meta = meta
            continue
        table = str(trace.meta.get("table", games.default.name))
        event = _event(line, kind, t, table, ports, words)
        trace.events.append(event)
        if isinstance(event, GpioEdge | SerialData):
            key = ("gpio", event.input) if isinstance(event, GpioEdge) else ("serial", event.port)
            first.setdefault(key, number)
    return trace


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


@dataclass(frozen=True)
class _Words:
    """What a trace line may name, from the games' specs: GPIO inputs, dealer actions, and
    the bet kinds of each table and the fields they take (``GameSpec.bet_fields``)."""

    gpio: frozenset[str]
    gpio_order: tuple[str, ...]
    actions: frozenset[str]
    bets: dict[str, tuple[str, ...]]
    ports: frozenset[str]
    bet_fields: dict[str, dict[str, BetField]]


@cache
def _words(games: Games) -> _Words:
    """The words of ``games``, made once for each (a trace is read line by line)."""
    order = list(dict.fromkeys([n for s in games for n in s.gpio_inputs] + list(BUTTON_INPUTS)))
    return _Words(frozenset(order), tuple(order),
                  frozenset(a for s in games for a in s.input_actions),
                  {s.name: s.bet_kinds for s in games},
                  frozenset(p for s in games for p in s.serial_ports),
                  {s.name: {f.name: f for f in s.bet_fields} for s in games})


def write_trace(path: str | os.PathLike[str], objects: Sequence[dict[str, Any]]) -> None:
    """Write trace objects as JSON Lines (CONTRACT §2): compact, times rounded to µs."""
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for obj in objects:
            line = {**obj, "t": round(obj["t"], 6)}
            out.write(json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a trace may hold")


class DuplicateKey(ValueError):
    """A JSON object gives ``key`` twice: it says two things, and neither is taken."""

    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(f"{show(key)} is given twice in one object: ambiguous, give it once")


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(key)
            seen.add(key)
    return obj


def loads_strict(text: str) -> Any:
    """JSON without NaN or Infinity (the journal could not hold them), and without an
    object that gives a key twice (``json`` would keep the last one silently).

    Raises:
        DuplicateKey: a key given twice in one object (a ``ValueError``); ValueError: not
            JSON, or a non-finite number; RecursionError: nested too deep.
    """
    return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float,
                      object_pairs_hook=_object)


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


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        shown = text if len(text) <= 24 else f"{text[:12]}...{text[-8:]} ({len(text)} digits)"
        raise ValueError(f"{shown} is not a number a trace may hold")
    return value



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


def _event(line: _Line, kind: str, t: float, table: str, ports: set[str],
           words: _Words) -> Event:
    obj = line.obj
    if kind == "gpio":
        name = line.name("gpio")
        if name not in words.gpio:
            raise line.error("gpio", f"unknown input {name!r}; inputs are "
                             f"{', '.join(words.gpio_order)}")
        level = obj.get("level")
        if level not in (0, 1) or isinstance(level, bool):
            raise line.error("level", f"must be 0 or 1, got {show(level)}")
        line.only("t", "gpio", "level")
        return GpioEdge(t, name, int(level))
    if kind == "serial":
        port = line.name("serial")
        if port not in ports:
            raise line.error("serial", f"unknown port {port!r}; configured: "
                             f"{', '.join(sorted(ports)) or 'none'}")
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
        if action not in words.actions:
            raise line.error("input", f"unknown dealer input {action!r}")
        for key in obj:
            if key in _RESERVED:
                raise line.error(key, "a dealer input's argument may not be named "
                                 f"{key!r} (a field of every record)")
        return DealerInput(t, action, {k: v for k, v in obj.items() if k not in ("t", "input")})
    # a bet
    kinds = words.bets.get(table, ())
    bet_kind = line.name("bet")
    if bet_kind not in kinds:
        raise line.error("bet", f"unknown bet kind {bet_kind!r} for {table}; kinds: "
                         f"{', '.join(kinds)}")
    fields = words.bet_fields.get(table, {})
    line.only("t", "bet", "box", "amount", *fields)
    given = {name: line.bet_field(spec) for name, spec in fields.items()
             if obj.get(name) is not None}  # null: not said
    return BetPlaced(t, bet_kind, line.integer("box", 1), line.integer("amount", 1), given)
