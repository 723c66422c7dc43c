"""The registered games as a value (:class:`Games`), and what a spec names by path.

The registry (:mod:`controller.core.registry`) finds the games; the composition root
(:mod:`controller.cli.compose`) asks it once and hands the result down as a :class:`Games`:
the config schema, the trace reader, the control socket and the tools that read a journal
of any game go from a game's name (``[table] game``, a trace's ``meta.table``, a journal's
``startup`` record) to its spec through the ``Games`` they are given, never through the
registry.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator
from typing import Any

from controller.core.contract import GameSpec


class Games:
    """Games by their table name, in registry order; ``default`` is the game of a config
    without ``[table] game`` and of a trace whose ``meta`` names none (the first when not
    said)."""

    def __init__(self, specs: Iterable[GameSpec], default: str | None = None) -> None:
        self._specs: dict[str, GameSpec] = {}
        for spec in specs:
            if spec.name in self._specs:
                raise ValueError(f"two games are called {spec.name!r}")
            self._specs[spec.name] = spec
        self.default = self._specs[default if default is not None else next(iter(self._specs))]

    @property
    def names(self) -> tuple[str, ...]:
        """The names a config's ``[table] game`` or a trace's ``meta.table`` may give."""
        return tuple(self._specs)

    def __iter__(self) -> Iterator[GameSpec]:
        return iter(self._specs.values())

    def __len__(self) -> int:
        return len(self._specs)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._specs

    def spec(self, name: str) -> GameSpec:
        """The spec of the game called ``name``.

        Raises:
            KeyError: no such game is among them.
        """
        return self._specs[name]

    def named(self, name: object) -> GameSpec:
        """The spec of the game called ``name``, or the default when none is called so (a
        journal that names no game yet, a name another version wrote)."""
        return self._specs.get(name if isinstance(name, str) else "", self.default)


def load_attribute(path: str) -> Any:
    """The object a spec names by ``"package.module:attribute"`` (its simulator, analysis,
    statistics, screen): imported only when it is used."""
    module, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module), attribute)
