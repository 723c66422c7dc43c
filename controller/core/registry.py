"""The registry of games: where the controller finds them, asked by the composition root
alone (:func:`controller.cli.compose.games`), which hands the result down.

``controller/games/__init__.py`` lists them (``PACKAGES``, and ``DEFAULT_GAME``): each
entry is a table's name (``SPEC.name``) and a module under ``controller/games/`` (a game's
package, or one module of a package that holds two variants of a game) that defines
``SPEC`` (:class:`controller.core.contract.GameSpec`). A game is imported when its table
is first asked for: a table imports its own game alone. Adding a game is one new package
and one line in that list (``controller/games/README.md``).

The kernel imports no game and names none: the packages are loaded by name, here alone.
A shared module is handed the games (:class:`controller.core.specs.Games`) or one game's
spec (``Config.spec``), never this module.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cache

from controller.core.contract import GameSpec
from controller.core.specs import Games

GAMES = "controller.games"
"""The package that holds the games and lists them (its ``PACKAGES``)."""


def _loader(module: str) -> Callable[[], GameSpec]:
    def load() -> GameSpec:
        spec = importlib.import_module(f"{GAMES}.{module}").SPEC
        assert isinstance(spec, GameSpec), module
        return spec
    return load


@cache
def games() -> Games:
    """Every registered game, in registry order, ``DEFAULT_GAME`` the default; each
    game's package is imported when its spec is first asked for."""
    listing = importlib.import_module(GAMES)
    return Games({name: _loader(module) for name, module in listing.PACKAGES.items()},
                 listing.DEFAULT_GAME)


def names() -> tuple[str, ...]:
    """The table names a config's ``[table] game`` or a trace's ``meta.table`` may give
    (no game is imported)."""
    return games().names


def spec(name: str) -> GameSpec:
    """The spec of the game called ``name``.

    Raises:
        KeyError: no such game is registered.
    """
    return games().spec(name)
