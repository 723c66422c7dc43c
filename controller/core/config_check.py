"""Every error of a config file at once (``tablectl config check``): the strict loader of
:mod:`controller.core.config` run again and again, each error kept and the key it names taken
out, until the file reads through."""

from __future__ import annotations

import copy
from typing import Any

from controller.core.config import check_for_daemon, parse
from controller.core.errors import ConfigError
from controller.core.section import Loader, parse_toml, read_config_text
from controller.core.specs import Games

MAX_CHECK_PASSES = 200


def check_file(path: str, games: Games) -> list[ConfigError]:
    """Every error of a config file at once (``tablectl config check``), in line order; []
    when the daemon would load it; ``games``: the registered games.

    The getters' errors (a type, a range, an unknown key) are kept and their defaults used;
    a check that raises (a pin used twice, a missing section) is kept, the key it names (or
    its nearest written table) is taken out and the file read again. An error that only
    follows from a key taken out is not reported. A bad ``[table] game`` is reported alone:
    the rest cannot be checked without the game. A file that reads through is then put to
    the daemon's own checks (``check_for_daemon``: a GPIO wheel's inputs wired...), so a
    config that passes does not stop the daemon. :func:`~controller.core.config.read_config`
    is unchanged: it raises the first error.
    """
    try:
        source, text = read_config_text(path)
        data = parse_toml(source, text)
    except ConfigError as exc:
        return [exc]
    found: dict[tuple[int | None, str | None, str], ConfigError] = {}
    removed: list[str] = []
    for _ in range(MAX_CHECK_PASSES):
        loader = Loader(source, text)
        loader.collected = []
        raised: ConfigError | None = None
        try:
            parse(loader, copy.deepcopy(data), games)
        except ConfigError as exc:
            raised = exc
        for error in [*loader.collected, *([raised] if raised else [])]:
            if error.field == "table.game":
                return [error]
            if not _follows_from(error, removed):
                found.setdefault((error.line, error.field, error.message), error)
        if raised is None or (where := _take_out(data, raised.field)) is None:
            break
        removed.append(where)
    if not found:
        found.update({(e.line, e.field, e.message): e
                      for e in _daemon_errors(source, text, games)})
    return sorted(found.values(), key=lambda e: (e.line or 0, e.field or ""))


def _daemon_errors(source: str, text: str, games: Games) -> list[ConfigError]:
    """What the daemon's own checks (:func:`check_for_daemon`) find in a config that
    reads through, with the line of the key they name."""
    try:
        check_for_daemon(parse(Loader(source, text), parse_toml(source, text), games))
    except ConfigError as exc:
        line = exc.line if exc.line is not None or not exc.field else (
            Loader(source, text).line_of(exc.field))
        return [ConfigError(exc.path, line, exc.field, exc.message)]
    return []


def _follows_from(error: ConfigError, removed: list[str]) -> bool:
    """The error is about a key taken out, under one, or names one its table lacks now."""
    key = error.field or ""
    for gone in removed:
        if key == gone or key.startswith(gone + "."):
            return True
        if gone.startswith(key + ".") and gone.rsplit(".", 1)[-1] in error.message:
            return True
    return False


def _take_out(data: dict[str, Any], dotted: str | None) -> str | None:
    """Delete the key ``dotted`` from ``data``, or the nearest written table on its path;
    return what was deleted, or None when nothing of it is written."""
    if not dotted:
        return None
    parts = dotted.split(".")
    node: Any = data
    depth = 0
    while depth < len(parts) - 1 and isinstance(node, dict) and isinstance(
            node.get(parts[depth]), dict):
        node = node[parts[depth]]
        depth += 1
    if isinstance(node, dict) and parts[depth] in node:
        del node[parts[depth]]
        return ".".join(parts[:depth + 1])
    if depth == 0:
        return None
    parent: Any = data
    for part in parts[:depth - 1]:
        parent = parent[part]
    del parent[parts[depth - 1]]
    return ".".join(parts[:depth])
