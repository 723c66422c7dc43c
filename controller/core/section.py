"""Reading a TOML config: typed, bounded getters that name the file, line and key of a
bad value (:class:`Section`), and the words for a config or a path that cannot be read.
The loader knows no game and no setting: the schema is :mod:`controller.core.config`.
"""

from __future__ import annotations

import grp
import math
import os
import re
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

from controller.core.errors import ConfigError
from controller.core.words import given

# The longest path a Unix socket may have: sun_path is 108 bytes with its final NUL.
MAX_SOCKET_PATH = 107


class Section:
    """Typed, bounded getters over one TOML table; remembers which keys were read.

    A game's ``load_config`` reads its own section through these; a key nobody read is an
    "unknown key" error once the whole file is read. Every error names file, line and key.
    """

    def __init__(self, loader: Loader, path: str, data: dict[str, Any]) -> None:
        self.loader = loader
        self.path = path
        self.data = data
        self.read: set[str] = set()

    def _key(self, key: str) -> str:
        if not key:
            return self.path
        return f"{self.path}.{key}" if self.path else key

    def error(self, key: str, message: str) -> ConfigError:
        """An error about ``key`` of this section (dotted below it; "" for the section)."""
        return self.loader.error(self._key(key), message)

    def error_at(self, dotted: str, message: str, near: str | None = None) -> ConfigError:
        """An error about any key of the file, by its full dotted name (``serial.shoe``);
        when that key is not written, the line of ``near`` (another dotted key)."""
        line = self.loader.line_of(dotted)
        if line is None and near is not None:
            line = self.loader.line_of(near)
        return ConfigError(self.loader.source, line, dotted, message)

    def has(self, key: str) -> bool:
        """The file gives ``key`` in this section (whether it was read or not)."""
        return key in self.data

    def _collect(self, exc: ConfigError, default: Any) -> Any:
        """A getter's error: raised (the daemon's single-error load), or, while the whole
        file is checked (``config_check.check_file``), kept and the default used so the rest
        is read."""
        if self.loader.collected is None:
            raise exc
        self.loader.collected.append(exc)
        return default

    def get(self, key: str, kind: type | tuple[type, ...], default: Any) -> Any:
        try:
            return self._get(key, kind, default)
        except ConfigError as exc:
            return self._collect(exc, default)

    def _get(self, key: str, kind: type | tuple[type, ...], default: Any) -> Any:
        self.read.add(key)
        if key not in self.data:
            return default
        value = self.data[key]
        if isinstance(value, bool) and kind is not bool and bool not in _as_tuple(kind):
            raise self.error(key, f"expected {_kind_name(kind)}, got {show_value(value)}")
        if kind is float and isinstance(value, int):
            try:
                value = float(value)
            except OverflowError:  # a 400-digit integer: no float holds it
                raise self.error(key, f"{show_value(value)} is out of range") from None
        if not isinstance(value, kind):
            raise self.error(key, f"expected {_kind_name(kind)}, got {show_value(value)}")
        return value

    def number(self, key: str, default: float, lo: float, hi: float, *, integer: bool = False,
               open_low: bool = False) -> Any:
        value = self.get(key, int if integer else float, default)
        if value is None:
            return None
        # An integer is compared exactly (math.isfinite would overflow on a huge one).
        finite = integer or math.isfinite(value)
        if not finite or value < lo or value > hi or (open_low and value == lo):
            low = f"({lo}" if open_low else f"[{lo}"
            return self._collect(self.error(key, f"{show_value(value)} is out of range "
                                            f"{low}, {hi}]"), default)
        return value

    def choice(self, key: str, default: str | None, choices: tuple[str, ...]) -> Any:
        value = self.get(key, str, default)
        if value is not None and value not in choices:
            return self._collect(self.error(key, f"{value!r} is not one of "
                                            f"{', '.join(choices)}"), default)
        return value

    def section(self, key: str) -> Section:
        self.read.add(key)
        value = self.data.get(key, {})
        if not isinstance(value, dict):
            raise self.error(key, f"expected a table [{self._key(key)}], got "
                             f"{show_value(value)}")
        return self.loader.section(self._key(key), value)

    def finish(self) -> None:
        for key in self.data:
            if key not in self.read:
                self._collect(self.error(key, "unknown key"), None)


def show_value(value: Any) -> str:
    """``value`` as the file spells it (``true``, ``[1, 2]``, ``'text'``), a huge integer as
    its digit count (one readable line; :func:`controller.core.words.given`)."""
    return given(value, limit=80)


def socket_path_problem(path: str) -> str | None:
    """Why ``path`` cannot be a Unix socket's path, or None when it can.

    A path is refused when it is empty or longer than ``MAX_SOCKET_PATH`` bytes once
    encoded (the kernel's ``sun_path``; Python's ``bind`` says "AF_UNIX path too long").
    """
    if not path:
        return "empty: give the socket's path"
    size = len(path.encode("utf-8", "surrogateescape"))
    if size > MAX_SOCKET_PATH:
        return (f"{size} bytes long; a Unix socket path may be at most {MAX_SOCKET_PATH} "
                "bytes (sun_path): choose a shorter one")
    return None


def why_not_made(path: str | Path, exc: OSError) -> str:
    """Why ``path`` (a journal, a socket) could not be made, in words: the first folder on
    its way that is a regular file, else the system's reason (``exc``)."""
    for parent in reversed(Path(path).parents):
        if parent.exists() and not parent.is_dir():
            return f"{parent} is a file, not a folder"
    return f"{exc.strerror or exc}"


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {int: "an integer", float: "a number", str: "a string", bool: "true or false",
             list: "a list", dict: "a table"}
    return " or ".join(names.get(k, k.__name__) for k in _as_tuple(kind))


class Loader:
    def __init__(self, source: str, text: str) -> None:
        self.source = source
        self.lines = text.splitlines()
        self.sections: list[Section] = []
        # ``config_check.check_file``: the getters' errors, kept instead of raised; None: raise.
        self.collected: list[ConfigError] | None = None

    def section(self, path: str, data: dict[str, Any]) -> Section:
        sec = Section(self, path, data)
        self.sections.append(sec)
        return sec

    def line_of(self, dotted: str) -> int | None:
        """The line of a dotted key: ``key =`` inside its ``[table]``, else a dotted-key
        line (``table.key =``), else the header of the nearest table that is written (for
        a key that is missing)."""
        parts = dotted.split(".")
        for split in range(len(parts) - 1, -1, -1):
            header, key = ".".join(parts[:split]), ".".join(parts[split:])
            key_re = re.compile(rf"^\s*{re.escape(key)}\s*=") if key else None
            in_table = header == ""
            for number, line in enumerate(self.lines, 1):
                stripped = line.strip()
                if stripped.startswith("["):
                    in_table = stripped.strip("[] ") == header
                elif in_table and key_re is not None and key_re.match(line):
                    return number
        for end in range(len(parts), 0, -1):
            prefix = ".".join(parts[:end])
            for number, line in enumerate(self.lines, 1):
                name = line.strip().strip("[] ") if line.strip().startswith("[") else None
                if name is not None and (name == prefix or name.startswith(prefix + ".")):
                    return number
        return None

    def error(self, dotted: str, message: str) -> ConfigError:
        return ConfigError(self.source, self.line_of(dotted), dotted, message)


def read_config_text(path: str) -> tuple[str, str]:
    """The text of a config file, or of the embedded default; returns (display name, text).

    Raises:
        ConfigError: the file cannot be read.
    """
    try:
        if path.startswith("embedded:"):
            name = path.removeprefix("embedded:")
            return path, resources.files("controller.data").joinpath(name).read_text(
                encoding="utf-8")
        return path, Path(path).read_text(encoding="utf-8")
    except PermissionError as exc:
        raise ConfigError(path, None, None, "cannot read config: "
                          f"{why_unreadable(exc.filename or path)}") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(path, None, None, f"cannot read config: {exc}") from exc


def why_unreadable(path: str | Path) -> str:
    """Why this account may not read ``path``, in words: the first folder on its way it
    may not enter, or the file, with its group (whose members may read it)."""
    where = Path(path)
    for folder in reversed(where.parents):
        if folder.exists() and not os.access(folder, os.X_OK):
            return (f"permission denied: this account may not enter {folder}"
                    f"{_group_words(folder)}")
    return f"permission denied{_group_words(where)}"


def _group_words(path: Path) -> str:
    try:
        gid = path.stat().st_gid
    except OSError:
        return ""
    try:
        name = grp.getgrgid(gid).gr_name
    except KeyError:
        name = str(gid)
    return f" (group {name}: run it as a member of that group, or with sudo)"


def parse_toml(source: str, text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"line (\d+)", str(exc))
        line = int(match.group(1)) if match else None
        raise ConfigError(source, line, None, f"TOML syntax error: {exc}") from exc
