"""Values in words for people: ``tablectl``'s human output and recall lines.

Never a Python repr (``None``, ``{'a': 1}``, ``['17']``) and never raw JSON: ``none``,
``yes``/``no``, numbers plain, lists joined by commas, tables as ``key value`` pairs.
Machines get ``--json`` instead.
"""

from __future__ import annotations

import json
import math
import re
import time
from datetime import datetime
from typing import Any


def words(value: Any) -> str:
    """``value`` in words: text as it is (control characters escaped, ``\\r``), ``none``,
    ``yes``/``no``, a number plain (at most 6 significant digits for a fraction), a list as
    ``a, b, c`` (a nested one in parentheses), a table as ``key value, key value`` (nested
    in parentheses)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        # A device's raw line may end in CR LF: one record stays on one line.
        return value if value.isprintable() else "".join(
            c if c.isprintable() else repr(c)[1:-1] for c in value)
    if isinstance(value, float):
        return f"{value:.6g}" if math.isfinite(value) else str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dict):
        return ", ".join(f"{k} {_inner(v)}" for k, v in value.items()) or "none"
    if isinstance(value, list | tuple):
        return ", ".join(_inner(v) for v in value) or "none"
    return str(value)


def given(value: Any, limit: int = 60) -> str:
    """A value as a person gave it, for a message that refuses it: text in quotes
    (``'abc'``: blanks and odd characters show), everything else as JSON and TOML write it
    (``null``, ``true``, ``[1, 2]``), cut to ``limit`` characters; a huge integer as its
    digit count (nobody could read it)."""
    if type(value) is int and not -10**20 < value < 10**20:
        return f"a {len(str(abs(value)))}-digit number"
    if isinstance(value, str):
        text = repr(value)
    elif isinstance(value, float) and not math.isfinite(value):
        text = str(value)  # TOML's inf and nan
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
        except (TypeError, ValueError):  # not JSON (a date from TOML, NaN): as Python says it
            text = str(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def one_of(choices: Any, last: str = "or") -> str:
    """Choices in words: ``a, b or c`` (never a Python tuple or list)."""
    names = [str(c) for c in choices]
    if len(names) < 2:
        return "".join(names) or "none"
    return f"{', '.join(names[:-1])} {last} {names[-1]}"


def _inner(value: Any) -> str:
    text = words(value)
    return f"({text})" if isinstance(value, dict | list | tuple) and value else text


def fields(record: dict[str, Any], skip: tuple[str, ...] = ("type", "seq", "t")) -> str:
    """A record's fields in words, ``key value; key value``, in the record's key order."""
    return "; ".join(f"{k} {words(v)}" for k, v in record.items() if k not in skip)


def plain(doc: str) -> str:
    """A docstring as help text for people: without its reST markup (````code````,
    ``:func:`name```)."""
    def role(match: re.Match[str]) -> str:
        name = match.group(2)
        return name.rsplit(".", 1)[-1] if match.group(1) else name

    return re.sub(r":\w+:`(~?)([^`]*)`", role, doc).replace("``", "")


def duration(seconds: float) -> str:
    """``4.2 s``, ``3 min 12 s``, ``5 h 4 min``, ``2 d 3 h``: a length of time for people."""
    if seconds < 0:
        return f"-{duration(-seconds)}"
    if seconds < 60:
        return f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"
    minutes, secs = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {secs} s"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minutes} min"
    days, hours = divmod(hours, 24)
    return f"{days} d {hours} h"


def local_time(epoch: float) -> str:
    """An epoch time (seconds) as local date and time, ``2025-06-01 10:31:37``."""
    return datetime.fromtimestamp(epoch).strftime("%Y-%m-%d %H:%M:%S")


def age(t: float, now: float | None = None) -> str:
    """How long ago a record stamped ``t`` was: wall time (epoch seconds) in the daemon's
    journal; a replay's journal holds trace seconds, which have no age."""
    if t < 1e9:
        return f"at trace time {t:.3f} s (a replay's journal)"
    gone = (time.time() if now is None else now) - t
    if gone < 0:  # a simulation faster than life stamps ahead of the wall clock
        return f"{duration(-gone)} ahead of this clock (a faster-than-life simulation)"
    return f"{duration(gone)} ago"
