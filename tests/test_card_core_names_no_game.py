"""The card core, the line codecs and the simulated shoe know no game (issue 7 item 4): a new
card game is one package and one registry line, with nothing to change here."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.core import registry

REPO = Path(__file__).resolve().parents[1]
GENERIC = sorted([*(REPO / "controller" / "cards").glob("*.py"),
                  *(REPO / "controller" / "protocols").glob("*.py"),
                  REPO / "sim" / "shoe_sim.py"])


@pytest.mark.parametrize("path", GENERIC, ids=lambda p: str(p.relative_to(REPO)))
def test_names_no_game(path: Path) -> None:
    text = path.read_text(encoding="utf-8").lower()
    for spec in registry.games():
        for name in (spec.name, spec.title, f"controller.games.{spec.name}"):
            assert name.lower() not in text, f"{path.name} names {name!r}"
