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


class JournalWriteError(JournalError):
    """A commit to the journal failed (disk full, file system read-only, I/O error):
    nothing of the transaction is on disk and the journal's head is as it was before it.

    The table does not go on as if it had been journaled: what it does is its
    ``on_commit_failure`` hook's (``controller.core.table``; by default the daemon stops,
    exit 4). ``cause`` says why in words (``disk full``, ``read-only``, ``I/O error`` or
    SQLite's message), ``what`` which records were lost.
    """

    def __init__(self, path: object, what: str, exc: BaseException) -> None:
        self.path = path
        self.what = what
        self.cause = _cause(exc)
        super().__init__(f"{path}: cannot write {what}: {self.cause}")


RESUME_ADVICE = ("The table cannot resume from it: copy the journal as evidence, run "
                 "`tablectl verify --full` on it, then move it aside and start on a new "
                 "journal (hardware.md §8)")
TOOL_ADVICE = "`tablectl verify --full` lists what else cannot be read (hardware.md §8)"


class UnreadableRecord(JournalError):
    """A record recovery cannot read (not JSON, a type or field its table does not
    declare, a ``type`` column that is not its body's): the start stops (exit 3) with
    one line naming it and what to do (``advice``; a tool that reads the journal says
    what to run instead)."""

    def __init__(self, path: object, seq: int, type_: str, why: str,
                 advice: str = RESUME_ADVICE) -> None:
        self.path = path
        self.seq = seq
        self.type_ = type_
        self.why = why
        super().__init__(f"{path}: record {seq} ({type_}) cannot be read: {why}. {advice}")


class UnreadableBatch(JournalError):
    """An evidence batch a tool cannot use (missing, altered: not the one its record
    closed, or not decodable): one line naming it and what to do (``advice``)."""

    def __init__(self, path: object, batch: int, why: str, advice: str = RESUME_ADVICE
                 ) -> None:
        self.path = path
        self.batch = batch
        super().__init__(f"{path}: evidence batch {batch} cannot be read: {why}. {advice}")


class JournalDamaged(JournalError):
    """SQLite cannot read the journal's file (a damaged page, the likeliest corruption
    on an SD card; not a database at all): the start stops (exit 3, restarting cannot
    help) with one line saying so and what to do (``advice``); ``why`` says what shows
    it when SQLite did not (``exc`` is then None)."""

    def __init__(self, path: object, exc: object, advice: str = RESUME_ADVICE,
                 why: str | None = None) -> None:
        self.path = path
        why = why or f"SQLite: {exc}"
        super().__init__(f"{path}: the journal's file is damaged ({why}). {advice}")


def is_damage(exc: BaseException) -> bool:
    """SQLite's error says the file is damaged or no database (``SQLITE_CORRUPT``,
    ``SQLITE_NOTADB``): reading it again cannot help."""
    name = getattr(exc, "sqlite_errorname", "")
    return name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB"))


def read_error(path: object, exc: BaseException, advice: str = RESUME_ADVICE
               ) -> JournalError:
    """The error to raise for a SQLite error reading the journal at ``path``: damage
    (:class:`JournalDamaged`), else a :class:`JournalError` naming it."""
    if is_damage(exc):
        return JournalDamaged(path, exc, advice)
    return JournalError(f"{path}: cannot read the journal: {exc}")


def _cause(exc: BaseException) -> str:
    name = getattr(exc, "sqlite_errorname", "")
    if name.startswith("SQLITE_FULL"):
        return "disk full"
    if name.startswith("SQLITE_READONLY"):
        return "read-only"
    if name.startswith("SQLITE_IOERR"):
        return f"I/O error ({exc})"
    return str(exc) or type(exc).__name__
