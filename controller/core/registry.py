"""The registry of games: the one place the kernel reaches them.

``controller/games/__init__.py`` lists them (``PACKAGES``, and ``DEFAULT_GAME``): each
entry is a module under ``controller/games/`` (a game's package, or one module of a package
that holds two variants of a game) that defines ``SPEC``
(:class:`controller.core.contract.GameSpec`), by its table's name (``SPEC.name``); a game
is imported when its table is first asked for. Adding a game is one new package and one
line in that list (``controller/games/README.md``).

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
PACKAGES: dict[str, str] = _LISTING.PACKAGES
"""Each game's table name and the module of its ``SPEC``, under ``GAMES``."""
DEFAULT_GAME: str = _LISTING.DEFAULT_GAME
"""The table of a config without ``[table] game`` and of a trace whose ``meta`` names none."""


def games() -> dict[str, GameSpec]:
    """Every registered game's spec, by its table name, in registry order (each game is
    imported: for the tools that need every one; a table needs only its own, ``spec``)."""
    return {name: spec(name) for name in PACKAGES}


def names() -> tuple[str, ...]:
    """The table names a config's ``[table] game`` or a trace's ``meta.table`` may give
    (no game is imported)."""
    return tuple(PACKAGES)


@cache
def spec(name: str) -> GameSpec:
    """The spec of the game called ``name`` (its package imported the first time).

    Raises:
        KeyError: no such game is registered.
    """
    loaded = importlib.import_module(f"{GAMES}.{PACKAGES[name]}").SPEC
    assert isinstance(loaded, GameSpec) and loaded.name == name, name
    return loaded


def spec_or_default(name: object) -> GameSpec:
    """The spec of the game called ``name``, or of ``DEFAULT_GAME`` when no registered game
    is called so (a journal that names no game yet, a name another version wrote)."""
    return spec(name if isinstance(name, str) and name in PACKAGES else DEFAULT_GAME)


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
