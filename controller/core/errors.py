"""One hierarchy for every error the controller raises on purpose.

Each class is also a builtin where it fits (``ValueError``), so callers that only know
Python's builtins still catch them.
"""

from __future__ import annotations


class TableControllerError(Exception):
    """Base of every error raised by table-controller."""


class InputError(TableControllerError, ValueError):
    """Bad input from a file: names the file, line and field.

    Args:
        path: the file (a config, a trace), as given by the user.
        line: 1-based line number, or None when the error is not tied to one line.
        field: the key or field at fault (dotted for nested keys), or None.
        message: what is wrong, with the offending value.
    """

    def __init__(self, path: str, line: int | None, field: str | None, message: str) -> None:
        self.path = path
        self.line = line
        self.field = field
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.path
        if self.line is not None:
            where += f":{self.line}"
        if self.field:
            where += f": field '{self.field}'"
        return f"{where}: {self.message}"


class ConfigError(InputError):
    """A config file (TOML) is unreadable or a value in it is not allowed."""


class TraceError(InputError):
    """A trace file (JSON Lines, CONTRACT §2) is unreadable or a line is malformed."""


class RuleViolation(TableControllerError, ValueError):
    """A table action the regulation does not allow (a malformed bet, a step out of order).

    ``code`` is the short machine-readable code journaled in the alarm record.
    """

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        self.message = message
        super().__init__(message)


class JournalError(TableControllerError):
    """The journal is corrupt, its hash chain is broken, or it cannot be written."""
