"""The layout issue 22 asks for, held: the kernel, the journal and the card core import no
game, and the registry of games is asked in one place, the composition root, which hands
down what it found (``Config.games``, ``Config.spec``)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HOUSE = sorted(p for where in ("controller", "drivers", "sim", "display", "feed", "bench")
               for p in (REPO / where).rglob("*.py"))
KERNEL = sorted(p for where in ("core", "store", "cards")
                for p in (REPO / "controller" / where).rglob("*.py"))


def imported(path: Path) -> Iterator[str]:
    """Every module ``path`` imports, by its full dotted name (``from a import b`` gives
    both ``a`` and ``a.b``: b may be a module)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


@pytest.mark.parametrize("path", KERNEL, ids=lambda p: str(p.relative_to(REPO)))
def test_the_kernel_imports_no_game(path: Path) -> None:
    games = [name for name in imported(path)
             if name == "controller.games" or name.startswith("controller.games.")]
    assert not games, f"{path.relative_to(REPO)} imports {', '.join(games)}"


def test_the_registry_is_asked_in_one_place() -> None:
    askers = sorted(str(path.relative_to(REPO)) for path in HOUSE
                    if "controller.core.registry" in imported(path))
    assert askers == ["controller/cli/compose.py"]
