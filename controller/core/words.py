"""Values in words for people: ``tablectl``'s human output and recall lines.

Never a Python repr (``None``, ``{'a': 1}``, ``['17']``) and never raw JSON: ``none``,
``yes``/``no``, numbers plain, lists joined by commas, tables as ``key value`` pairs.
Machines get ``--json`` instead.
"""

from __future__ import annotations

import json
import math
import re
import textwrap
import time
from datetime import datetime
from typing import Any

COLUMNS = 80  # a terminal's width: text a person reads fits it (GUIDE)


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

    return _reflow(re.sub(r":\w+:`(~?)([^`]*)`", role, doc).replace("``", ""))


# An item of a list in a docstring: "- text", "1. text", "0  text" (a table's row).
_ITEM = re.compile(r"(- |\d+\.? +|[a-z]\) )")


def _reflow(text: str, width: int = COLUMNS - 2) -> str:
    """``text``'s paragraphs and list items refilled to ``width`` columns (argparse's own,
    on an 80-column terminal); an item's lines after its first hang under its text."""
    out: list[str] = []
    para: list[str] = []
    first = rest = 0

    def flush() -> None:
        if para:
            out.append(textwrap.fill(" ".join(para), width, initial_indent=" " * first,
                                     subsequent_indent=" " * rest, break_long_words=False,
                                     break_on_hyphens=False))
            para.clear()

    for line in text.splitlines():
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        item = _ITEM.match(stripped)
        if not stripped:
            flush()
            out.append("")
        elif para and indent == rest and not item and not para[-1].endswith(":"):
            para.append(stripped)
        else:
            flush()
            first, rest = indent, indent + (len(item.group(1)) if item else 0)
            para.append(stripped)
    flush()
    return "\n".join(out)


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


def labelled(label: str, text: str, gap: int = 13, width: int = COLUMNS) -> str:
    """``label`` padded to ``gap`` columns, then ``text`` cut at spaces into lines of at
    most ``width`` columns, the lines after the first indented by ``gap`` + 2 (told apart
    from a next line without a label; a word longer than the line, a path or a hash,
    stays whole)."""
    lines = textwrap.wrap(text, width, initial_indent=f"{label:<{gap - 1}} ",
                          subsequent_indent=" " * (gap + 2), break_long_words=False,
                          break_on_hyphens=False)
    return "\n".join(lines) if lines else label


def fit(text: str, indent: int = 2, width: int = COLUMNS) -> str:
    """``text`` cut at spaces into lines of at most ``width`` columns, those after the
    first indented by ``indent``."""
    return "\n".join(textwrap.wrap(text, width, subsequent_indent=" " * indent,
                                   break_long_words=False, break_on_hyphens=False)) or text
