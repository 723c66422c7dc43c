"""A trace file's lines, read a chunk at a time: strict JSON, and runs of GPIO lines read
in bulk (issue 20: a replay's reading of its trace).

Nine lines in ten of a wheel's trace are GPIO changes, all of one shape
(``{"t":1.437498,"gpio":"rotor_a","level":1}``, compact or with ``json.dumps``' spaces).
One pattern matched over a chunk's text gives each such line's values, and a run of them
is handed on whole (:class:`EdgeRun`), so that checking and keeping them costs no Python
step a line; the pattern's three keys are distinct, so no key is given twice. Every other
line is parsed as strict JSON (:func:`loads_strict`). What a run's values may be (times
in order, inputs a table reads) is checked by
:func:`controller.trace.trace_from_objects`, which reads a run that does not pass line by
line, as JSON, to name the line and field at fault.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, BinaryIO

from controller.core.errors import TraceError
from controller.core.words import given

_CHUNK_BYTES = 1 << 18  # about 6,000 lines read, matched and parsed at a time
_NUMBER = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?"  # JSON's grammar
# Compact, or with json.dumps' spaces; a line spaced otherwise is read as JSON.
_EDGE = (rf'\{{"t": ?({_NUMBER}), ?"gpio": ?"([A-Za-z0-9_]+)", ?"level": ?([01])\}}\r?')
_LINE = re.compile(rf"^(?:{_EDGE}|(.*))$", re.M)  # a GPIO line's values, else the line
_TIMES, _NAMES, _LEVELS = itemgetter(0), itemgetter(1), itemgetter(2)


@dataclass(frozen=True)
class EdgeRun:
    """Consecutive GPIO lines: their times, inputs and levels (0 or 1), and where they
    are in their chunk's text (to be read as JSON, :meth:`lines`, if their values do not
    pass)."""

    times: list[float]
    names: list[str]
    levels: list[int]
    text: str
    first: int  # the run's lines in ``text``: ``first`` to ``end`` (excluded)
    end: int

    def lines(self) -> list[str]:
        return [line.removesuffix("\r")
                for line in self.text.split("\n")[self.first:self.end]]


def items(path: str, handle: BinaryIO) -> Iterator[tuple[int, Any]]:
    """(line number, item) of the file's lines that are not blank, in order: an item is a
    run of GPIO lines (:class:`EdgeRun`, numbered by its first line) or a line's decoded
    JSON.

    Raises:
        TraceError: a line is not UTF-8 or not JSON (names the line), the file cannot be
            read.
    """
    with handle:
        number, offset = 0, 0  # lines and bytes before the chunk
        try:
            while lines := handle.readlines(_CHUNK_BYTES):
                data = b"".join(lines)
                try:
                    text = data.decode("utf-8")
                except UnicodeDecodeError:
                    _not_utf8(path, lines, number, offset)
                yield from _chunk(path, text, number)
                number += len(lines)
                offset += len(data)
        except OSError as exc:
            raise TraceError(path, None, None, f"cannot read trace: {exc}") from exc


def _not_utf8(path: str, lines: list[bytes], number: int, offset: int) -> None:
    """Raise the error of the first line of a chunk that is not UTF-8."""
    for raw in lines:
        number += 1
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise TraceError(path, number, None, f"not UTF-8: {exc.reason} at byte "
                             f"{offset + exc.start}") from exc
        offset += len(raw)


def _chunk(path: str, text: str, number: int) -> list[tuple[int, Any]]:
    """The items of a chunk of whole lines (``number`` lines before it)."""
    found = _LINE.findall(text)  # one tuple a line: a GPIO line's values, or the line
    if text.endswith("\n"):
        found.pop()  # the empty match after the last newline: no line
    out: list[tuple[int, Any]] = []
    others: list[tuple[int, str]] = []
    slots: list[int] = []
    start = 0
    for i in [i for i, t in enumerate(map(_TIMES, found)) if not t] + [len(found)]:
        if i > start:
            run = found[start:i]
            out.append((number + start + 1, EdgeRun(
                list(map(float, map(_TIMES, run))), list(map(_NAMES, run)),
                list(map(int, map(_LEVELS, run))), text, start, i)))
        if i < len(found):
            line = found[i][3].removesuffix("\r")
            if line.strip():
                slots.append(len(out))
                out.append((number + i + 1, None))
                others.append((number + i + 1, line))
        start = i + 1
    if others:
        for slot, item in zip(slots, decode(path, others), strict=True):
            out[slot] = item
    return out


def decode(path: str, numbered: list[tuple[int, str]]) -> list[tuple[int, Any]]:
    """(line number, decoded JSON) of each of ``numbered`` (line number, text).

    Raises:
        TraceError: a line is not JSON, not an object, or gives a key twice.
    """
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


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a trace may hold")


class DuplicateKey(ValueError):
    """A JSON object gives ``key`` twice: it says two things, and neither is taken."""

    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(f"{given(key, 60)} is given twice in one object: ambiguous, give "
                         "it once")


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


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        shown = text if len(text) <= 24 else f"{text[:12]}...{text[-8:]} ({len(text)} digits)"
        raise ValueError(f"{shown} is not a number a trace may hold")
    return value
