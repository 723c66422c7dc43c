"""How a roulette spin reads in ``tablectl status`` and ``recall`` (seed 001 Art. 14).

Each wheel source measures its own things: the GPIO wheel the laps, the rotor's periods and
the pocket readings; a serial wheel its game counter, warning flags, status lines and the
line that concluded the spin, and the ball's revolutions only in its extended lines. What a
record does not carry, or carries as unknown (null), is left out, never shown as "none".
"""

from __future__ import annotations

from typing import Any

from controller.core.words import words
from controller.protocols.wheel_status import FLAG_NAMES


def summary(record: dict[str, Any]) -> str:
    """One line for a ``spin_result``, ``spin_invalid`` or ``spin_held`` record."""
    by = f"decided by {record['decided_by']}" if record.get("decided_by") else ""
    if record["type"] == "spin_result":
        said = ", ".join(part for part in (_measured(record), by) if part)
        return f"spin {record['spin']}: {record['number']} ({said})"
    if record["type"] == "spin_invalid":
        reasons = ", ".join(dict.fromkeys([record["reason"], *record.get("reasons", [])]))
        return f"spin {record['spin']}: INVALID, {reasons}" + (f", {by}" if by else "")
    why = "; ".join(f"{k}: {words(v)}" for k, v in sorted(record["details"].items()))
    seen = (record.get("candidate") or " or ".join(record.get("candidates") or [])
            or "no pocket read")
    return (f"spin {record['spin']}: HELD for the inspector ({why}); the sensors point to "
            f"{seen}; decide with `tablectl input confirm_result number=N by=NAME` or "
            f"`tablectl input void reason=R by=NAME`")


def _measured(record: dict[str, Any]) -> str:
    """``10 ball revolutions, ball ccw, rotor cw at 9.985 rpm``: what was measured."""
    parts = []
    if record.get("ball_revolutions") is not None:
        count = record["ball_revolutions"]
        parts.append(f"{count} ball revolution{'' if count == 1 else 's'}")
    if record.get("ball_direction") is not None:
        parts.append(f"ball {record['ball_direction']}")
    rotor = record.get("rotor_direction")
    rpm = record.get("rotor_rpm")
    if rotor is not None or rpm is not None:
        parts.append(" ".join(["rotor", *([rotor] if rotor else []),
                               *([f"at {words(rpm)} rpm"] if rpm is not None else [])]))
    return ", ".join(parts)


def detail(record: dict[str, Any]) -> str:
    """The evidence of a spin's verdict, for ``recall``: what its wheel measured (the GPIO
    wheel's laps, rotor periods and pocket readings; a serial wheel's game counter, flags,
    lines and the line that concluded it) and the details of its reasons."""
    parts = []
    if "lap_times" in record:
        parts.append(f"laps {_seconds(record['lap_times'])}")
    if "rotor_periods" in record:
        parts.append(f"rotor periods {_seconds(record['rotor_periods'])}")
    if "pocket_readings" in record:
        parts.append(f"pocket readings {_readings(record['pocket_readings'])}")
    parts += _serial(record)
    for key in ("details", "uncertain"):
        if record.get(key):
            parts.append("; ".join(f"{k}: {words(v)}" for k, v in record[key].items()))
    return "".join(f"; {part}" for part in parts)


def _serial(record: dict[str, Any]) -> list[str]:
    """What a serial wheel's status lines said of the spin (issue 12)."""
    parts = []
    if record.get("wheel_game") is not None:
        parts.append(f"wheel game {record['wheel_game']:03d}")
    if "wheel_flags" in record:
        parts.append(f"warning flags {_flags(record['wheel_flags'])}")
    if record.get("wheel_flags_before_launch"):
        parts.append(f"up before the launch: {_flags(record['wheel_flags_before_launch'])}")
    if record.get("rotor_rpm_min") is not None:
        parts.append(f"slowest rotor {words(record['rotor_rpm_min'])} rpm")
    if record.get("status_lines") is not None:
        parts.append(f"{record['status_lines']} status lines in play")
    if record.get("bare_numbers"):
        bare = [n if n is not None else "not a pocket" for n in record["bare_numbers"]]
        parts.append(f"bare number lines {words(bare)}")
    if record.get("concluded_by"):
        parts.append(f"concluded by {record['concluded_by']}")
    return parts


def _flags(flags: list[int]) -> str:
    return ", ".join(f"{f} ({FLAG_NAMES.get(f, 'unknown flag')})" for f in flags) or "none"


def _readings(readings: list[dict[str, Any]]) -> str:
    """The pockets read, and how many activations no pocket could be read from."""
    numbers = [str(r["number"]) for r in readings if r.get("number") is not None]
    unread = len(readings) - len(numbers)
    text = ", ".join(numbers)
    if unread:
        text += f"{'; ' if text else ''}{unread} with no pocket read"
    return text or "none"


def _seconds(values: Any) -> str:
    """Times in seconds to the millisecond (the journal keeps them whole)."""
    return f"{', '.join(f'{v:.3f}' for v in values)} s" if values else "none"
