"""The registry of games: the one place the kernel reaches them.

``controller/games/__init__.py`` lists them (``PACKAGES``, and ``DEFAULT_GAME``): each
entry is a module under ``controller/games/`` (a game's package, or one module of a package
that holds two variants of a game) that defines ``SPEC``
(:class:`controller.core.contract.GameSpec`); the table's name is ``SPEC.name``. Adding a
game is one new package and one line in that list (``controller/games/README.md``).

The kernel imports no game and names none: the packages are loaded by name, here alone,
and a game's name becomes its spec in one place, the config
(:attr:`controller.core.config.Config.spec`, from ``[table] game`` or a trace's
``meta.table``), which hands the spec down.
"""

from __future__ import annotations

import importlib
from functools import cache

from controller.core.contract import GameSpec
from controller.store import records

GAMES = "controller.games"
"""The package that holds the games and lists them (its ``PACKAGES``)."""
_LISTING = importlib.import_module(GAMES)  # the list alone: no game is imported yet
PACKAGES: tuple[str, ...] = _LISTING.PACKAGES
DEFAULT_GAME: str = _LISTING.DEFAULT_GAME
"""The table of a config without ``[table] game`` and of a trace whose ``meta`` names none."""


@cache
def games() -> dict[str, GameSpec]:
    """Every registered game's spec, by its table name, in registry order."""
    specs: dict[str, GameSpec] = {}
    for module in PACKAGES:
        spec = importlib.import_module(f"{GAMES}.{module}").SPEC
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


def spec_or_default(name: object) -> GameSpec:
    """The spec of the game called ``name``, or of ``DEFAULT_GAME`` when no registered game
    is called so (a journal that names no game yet, a name another version wrote)."""
    return games().get(name if isinstance(name, str) else "", games()[DEFAULT_GAME])


def schema(name: str) -> records.Schema:
    """The record types the table called ``name`` writes and reads
    (:func:`controller.store.records.schema` of its spec).

    Raises:
        KeyError: no such game is registered.
    """
    return records.schema(spec(name))


def any_schema() -> records.Schema:
    """Every registered game's record types, for the tools that read a journal whose game
    they cannot tell (:func:`controller.store.records.any_schema`)."""
    return records.any_schema(games().values())


def load_callable(path: str) -> object:
    """The object named by ``"package.module:attribute"`` (a spec's simulator, analysis)."""
    module, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module), attribute)
