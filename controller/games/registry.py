"""The registry of games: the one place that lists them.

Each name is a package ``controller/games/<name>/`` whose ``__init__`` defines ``SPEC``
(:class:`controller.games.base.GameSpec`). Adding a game is one new package and one line
here (``controller/games/README.md``).
"""

from __future__ import annotations

import importlib
from functools import cache

from controller.games.base import GameSpec

PACKAGES: tuple[str, ...] = (
    "roulette",        # seed 001, Peru 1999
    "mini_baccarat",   # seed 000, Uruguay decree 217/978
)

DEFAULT_GAME = PACKAGES[0]
"""The table of a config without ``[table] game`` and of a trace whose ``meta`` names none."""


@cache
def games() -> dict[str, GameSpec]:
    """Every registered game's spec, by its table name, in registry order."""
    specs: dict[str, GameSpec] = {}
    for package in PACKAGES:
        spec = importlib.import_module(f"controller.games.{package}").SPEC
        assert isinstance(spec, GameSpec) and spec.name == package, package
        specs[spec.name] = spec
    return specs


def names() -> tuple[str, ...]:
    """The table names a config's ``[table] game`` or a trace's ``meta.table`` may give."""
    return PACKAGES


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
