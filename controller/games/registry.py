"""The registry of games: the one place that lists them.

Each entry is a module under ``controller/games/`` (a game's package, or one module of a
package that holds two variants of a game) that defines ``SPEC``
(:class:`controller.games.base.GameSpec`); the table's name is ``SPEC.name``. Adding a game is
one new package and one line here (``controller/games/README.md``).
"""

from __future__ import annotations

import importlib
from functools import cache

from controller.games.base import GameSpec

PACKAGES: tuple[str, ...] = (
    "roulette",        # seed 001, Peru 1999
    "mini_baccarat",   # seed 000, Uruguay decree 217/978
    "blackjack.plus",      # seed 002, Peru 2016: Black Jack Plus
    "blackjack.pot_luck",  # seed 004, Peru 2000: Pot Luck Black Jack
    "draw_poker",      # seed 003, Montevideo
)

DEFAULT_GAME = "roulette"
"""The table of a config without ``[table] game`` and of a trace whose ``meta`` names none."""


@cache
def games() -> dict[str, GameSpec]:
    """Every registered game's spec, by its table name, in registry order."""
    specs: dict[str, GameSpec] = {}
    for module in PACKAGES:
        spec = importlib.import_module(f"controller.games.{module}").SPEC
        assert isinstance(spec, GameSpec) and spec.name not in specs, module
        specs[spec.name] = spec
    return specs


def names() -> tuple[str, ...]:
    """The table names a config's ``[table] game`` or a trace's ``meta.table`` may give."""
    return tuple(games())


def spec(name: str) -> GameSpec:
    """The spec of the game called ``name``.

    Raises:
        KeyError: no such game is registered.
    """
    return games()[name]


def load_callable(path: str) -> object:
    """The object named by ``"package.module:attribute"`` (a spec's simulator, analysis)."""
    module, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module), attribute)
