"""A trace file's lines, read a chunk at a time as strict JSON (:func:`loads_strict`): the
reading :func:`controller.trace.read_trace` checks."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any, BinaryIO

from controller.core.errors import TraceError
from controller.core.words import given

_CHUNK = 4096  # lines parsed at a time


def items(path: str, handle: BinaryIO) -> Iterator[tuple[int, Any]]:
    """(line number, decoded JSON) of each line of the file that is not blank.

    Raises:
        TraceError: a line is not UTF-8 or not JSON (names the line), the file cannot be
            read.
    """
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
                    yield from decode(path, chunk)
                    chunk = []
        except OSError as exc:
            raise TraceError(path, None, None, f"cannot read trace: {exc}") from exc
        yield from decode(path, chunk)


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
