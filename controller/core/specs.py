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
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from controller.core.contract import GameSpec


class Games:
    """Games by their table name, in registry order; ``default`` is the game of a config
    without ``[table] game`` and of a trace whose ``meta`` names none (the first when not
    said). Each game's spec is made by its loader the first time it is asked for (a table
    imports its own game alone: a replay's start-up, issue 20); iterating loads them all.
    """

    def __init__(self, specs: Iterable[GameSpec] | Mapping[str, Callable[[], GameSpec]],
                 default: str | None = None) -> None:
        if isinstance(specs, Mapping):
            self._loaders: dict[str, Callable[[], GameSpec]] = dict(specs)
            self._specs: dict[str, GameSpec] = {}
        else:
            self._specs = {}
            for spec in specs:
                if spec.name in self._specs:
                    raise ValueError(f"two games are called {spec.name!r}")
                self._specs[spec.name] = spec
            self._loaders = {name: _given(spec) for name, spec in self._specs.items()}
        self._default = default if default is not None else next(iter(self._loaders))

    @property
    def default(self) -> GameSpec:
        """The default game's spec."""
        return self.spec(self._default)

    @property
    def names(self) -> tuple[str, ...]:
        """The names a config's ``[table] game`` or a trace's ``meta.table`` may give (no
        game is loaded)."""
        return tuple(self._loaders)

    @property
    def default_name(self) -> str:
        """The default game's table name (no game is loaded)."""
        return self._default

    def __iter__(self) -> Iterator[GameSpec]:
        return iter([self.spec(name) for name in self._loaders])

    def __len__(self) -> int:
        return len(self._loaders)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._loaders

    def spec(self, name: str) -> GameSpec:
        """The spec of the game called ``name``, loaded the first time.

        Raises:
            KeyError: no such game is among them.
        """
        spec = self._specs.get(name)
        if spec is None:
            spec = self._specs[name] = self._loaders[name]()
            if spec.name != name:
                raise ValueError(f"the game listed as {name!r} calls itself {spec.name!r}")
        return spec

    def named(self, name: object) -> GameSpec:
        """The spec of the game called ``name``, or the default when none is called so (a
        journal that names no game yet, a name another version wrote)."""
        return self.spec(name if isinstance(name, str) and name in self else self._default)


def _given(spec: GameSpec) -> Callable[[], GameSpec]:
    return lambda: spec


def load_attribute(path: str) -> Any:
    """The object a spec names by ``"package.module:attribute"`` (its simulator, analysis,
    statistics, screen): imported only when it is used."""
    module, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module), attribute)
