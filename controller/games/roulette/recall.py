"""How a roulette spin reads in ``tablectl status`` and ``recall`` (seed 001 Art. 14)."""

from __future__ import annotations

from typing import Any

from controller.core.words import words


def summary(record: dict[str, Any]) -> str:
    """One line for a ``spin_result``, ``spin_invalid`` or ``spin_held`` record."""
    by = f", decided by {record['decided_by']}" if record.get("decided_by") else ""
    if record["type"] == "spin_result":
        return (f"spin {record['spin']}: {record['number']} ({record['ball_revolutions']} ball "
                f"revolutions, ball {record['ball_direction']}, rotor {record['rotor_direction']} "
                f"at {record['rotor_rpm']} rpm{by})")
    if record["type"] == "spin_invalid":
        reasons = ", ".join(dict.fromkeys([record["reason"], *record["reasons"]]))  # each once
        return f"spin {record['spin']}: INVALID, {reasons}{by}"
    why = "; ".join(f"{k}: {words(v)}" for k, v in sorted(record["details"].items()))
    seen = record.get("candidate") or "no pocket read"
    return (f"spin {record['spin']}: HELD for the inspector ({why}); the sensors point to "
            f"{seen}; decide with `tablectl input confirm_result number=N by=NAME` or "
            f"`tablectl input void reason=R by=NAME`")


def detail(record: dict[str, Any]) -> str:
    """The evidence of a spin's verdict, for ``recall``: laps, rotor periods, readings."""
    readings = [r["number"] for r in record.get("pocket_readings", [])]
    text = (f"; laps {_seconds(record.get('lap_times'))}; rotor periods "
            f"{_seconds(record.get('rotor_periods'))}; pocket readings {words(readings)}")
    if record.get("details"):
        text += f"; {words(record['details'])}"
    return text


def _seconds(values: Any) -> str:
    return f"{words(values)} s" if values else "none"
