"""How a Mini-Bacará coup reads in ``tablectl status`` and ``recall`` (seed 000)."""

from __future__ import annotations

from typing import Any


def summary(record: dict[str, Any]) -> str:
    """One line for a ``coup_result`` record: the Banca's total and each box's outcome."""
    boxes = ", ".join(f"box {b['box']} {b['outcome']}" for b in record["boxes"])
    return f"coup {record['coup']}: Banca {record['banca']['total']}; {boxes}"


def detail(record: dict[str, Any]) -> str:
    return ""
