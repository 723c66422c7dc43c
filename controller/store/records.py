r"""Typed records: one frozen dataclass per record type, the one place that defines its fields.

A record type is a subclass of :class:`Record` decorated with :func:`record`: its annotated
attributes are the record's fields (their names as in the body: a trailing ``_`` is
dropped, ``from_`` is ``from``), their types the JSON values they hold (``int``, ``float``,
``str``, ``bool``, ``list[...]``, ``dict[...]``, ``Any``; ``X | None`` may be null), and a
field whose default is :data:`ABSENT` is optional: left out of the body when not given. The
fields every record has (``type``, ``seq``, ``t``) are the journal's, never declared.
Pokerkit's frozen operations are the model: a game makes the record whole, as a value,
and hands it to ``emit`` (``emit(SpinResult(spin=..., number=...))``), so mypy checks every
field at every place a record is made (the decorators are ``dataclass_transform``\s).

Two kinds of field hold several fields of the body: a :class:`Group` (a frozen dataclass
of optional fields, e.g. what the wheel measured of a spin) puts its fields in the body,
and a mapping whose default is :data:`NO_FIELDS` puts its items there: the undeclared
fields of a type declared ``extra`` (a dealer input's arguments), or a card game's tag
declared in its schema (``controller.cards.records``); those are checked at run time only.

Where they are declared: the records every table writes in :mod:`controller.store.shared`;
the card core's in :mod:`controller.cards.records`; each game's in its package's
``records.py``, listed in its ``GameSpec(records=...)`` together with the fields it adds to
shared types (:func:`extends`, a subclass of the type: a Mini-Bacará alarm carries its
``coup``). A table's schema (:func:`schema`) is the shared types, its game's, and the
game's extensions.

``Table.emit(record)`` checks the record's body against the table's schema too
(:func:`build`): a type not declared for this table, or a value of the wrong type, is a bug
and raises :class:`RecordError` at once (in tests and in the daemon: nothing of the input is
journaled). Recovery reads records back through :func:`check` (a record it cannot read
stops the start, ``controller.cli.main``).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from functools import cache
from typing import Any, ClassVar, Protocol, TypeVar, dataclass_transform

from controller.core.errors import TableControllerError
from controller.core.words import given

_JOURNAL_KEYS = frozenset({"type", "seq", "t"})
_NONE: frozenset[type] = frozenset()


class Absent:
    """The value of an optional field that is not in the record (not the same as null)."""

    _instance: ClassVar[Absent | None] = None

    def __new__(cls) -> Absent:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "ABSENT"

    def __bool__(self) -> bool:
        return False


ABSENT = Absent()
"""Default of an optional field: the field is left out of the body."""


class _NoFields(Mapping[str, Any]):
    """An empty mapping that a frozen dataclass takes as a default (it is hashable)."""

    _instance: ClassVar[_NoFields | None] = None

    def __new__(cls) -> _NoFields:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __getitem__(self, key: str) -> Any:
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "NO_FIELDS"


NO_FIELDS: Mapping[str, Any] = _NoFields()
"""Default of a mapping field whose items go into the body as fields of their own (a
dealer input's arguments, a card game's tag), checked against the schema at run time."""

_FLAT = "flat"  # a plan's mark: the field's items go into the body


class _Fields:
    """What a record and a group share: how an instance becomes the fields of a body."""

    # (attribute, key in the body, how): how is None (the value), _FLAT (a mapping's
    # items) or the Group class whose fields the value holds.
    _PLAN: ClassVar[tuple[tuple[str, str, Any], ...]] = ()
    # The fields that hold fields, when they are the last and no name changes: the body
    # is then the instance's own values first (a dataclass's __dict__ is in field order).
    _TAIL: ClassVar[tuple[tuple[str, str, Any], ...] | None] = None

    def body(self) -> dict[str, Any]:
        """The fields as journaled (without ``type``, ``seq``, ``t``), absent ones left out."""
        tail = self._TAIL
        if tail is None:
            out: dict[str, Any] = {}
            plan = self._PLAN
        else:
            out = {k: v for k, v in self.__dict__.items() if v is not ABSENT}
            if not tail:
                return out
            plan = tail
            for attr, _key, _how in tail:
                out.pop(attr, None)
        for attr, key, how in plan:
            value = getattr(self, attr)
            if value is ABSENT or value is NO_FIELDS:
                continue
            if how is None:
                out[key] = value
            elif how == _FLAT:
                if out.keys() & value.keys():  # a tag or an argument named as a field
                    raise RecordError(f"{type(self).__qualname__}: {attr} gives "
                                      f"{', '.join(sorted(out.keys() & value.keys()))} again")
                out.update(value)
            else:
                out.update(value.body())
        return out


class Record(_Fields):
    """A record a table journals, made whole by a game and handed to ``emit``: a subclass
    declared with :func:`record` (a type) or :func:`extends` (a game's fields on a type
    declared elsewhere). ``TYPE`` is the ``type`` of its records, ``SPEC`` its
    :class:`RecordSpec` (or :class:`Extension`)."""

    TYPE: ClassVar[str]
    SPEC: ClassVar[RecordSpec | Extension]


class Group(_Fields):
    """Fields that several record types share and one part of a game makes together (what
    the wheel measured of a spin), declared with :func:`group`: a record's field of this
    type puts its fields in the body; each must be optional (:data:`ABSENT`)."""


R = TypeVar("R", bound=type[_Fields])


class RecordError(TableControllerError, TypeError):
    """A record that does not match its declared type: the type is not declared for this
    table, a field is unknown or missing, or a value has the wrong type. The message names
    the record type, the field and what to do."""


@dataclass(frozen=True)
class FieldSpec:
    """One field: its ``key`` in the body, the Python types its value may have (None: any
    JSON value), whether it may be null and whether it may be left out."""

    key: str
    kinds: tuple[type, ...] | None
    nullable: bool
    optional: bool

    def problem(self, value: Any) -> str | None:
        """Why ``value`` cannot be this field's, or None."""
        if value is None:
            return None if self.nullable or self.kinds is None else "null where a value is due"
        if self.kinds is None:
            return None
        kind = type(value)
        if kind is bool and bool not in self.kinds:
            return f"{value!r} where {_names(self.kinds)} is due"
        if kind in self.kinds or (kind is not bool and isinstance(value, self.kinds)):
            return None
        return f"{type(value).__name__} {_short(value)} where {_names(self.kinds)} is due"


@dataclass(frozen=True)
class RecordSpec:
    """A record type: its ``name`` (the ``type`` of its records), its fields, whether it
    takes undeclared fields too (``extra``: a dealer input's arguments), whether it closes
    the open evidence batch (``closes_evidence``: it then carries the batch's ``evidence``
    reference), whether it is only read in journals written before format 2 (``legacy``),
    and the class that declares it."""

    name: str
    fields: tuple[FieldSpec, ...]
    cls: type | None = None
    extra: bool = False
    closes_evidence: bool = False
    legacy: bool = False
    by_key: dict[str, FieldSpec] = field(default_factory=dict, compare=False)
    required: frozenset[str] = frozenset()
    # key -> the exact types a value of it is taken for without a look at the field (None:
    # any value): most values; the others go through FieldSpec.problem.
    _plain: dict[str, frozenset[type] | None] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        self.by_key.update({f.key: f for f in self.fields})
        object.__setattr__(self, "required",
                           frozenset(f.key for f in self.fields if not f.optional))
        self._plain.update({f.key: None if f.kinds is None else frozenset(
            f.kinds + ((type(None),) if f.nullable else ())) for f in self.fields})

    def extended(self, more: Iterable[FieldSpec]) -> RecordSpec:
        added = tuple(f for f in more if f.key not in self.by_key)
        return RecordSpec(self.name, self.fields + added, self.cls, self.extra,
                          self.closes_evidence, self.legacy)

    def check(self, values: Mapping[str, Any]) -> None:
        """Raise :class:`RecordError` unless ``values`` (the fields, without ``type``,
        ``seq`` and ``t``) are a record of this type."""
        by_key, plain = self.by_key, self._plain
        for key, value in values.items():
            kinds = plain.get(key, _NONE)
            if kinds is None or type(value) in kinds:
                continue
            spec = by_key.get(key)
            if spec is None:
                if self.extra or key in _JOURNAL_KEYS:
                    continue
                raise RecordError(f"record {self.name!r}: unknown field {key!r}; declare it "
                                  f"in {self.where()}")
            why = spec.problem(value)
            if why is not None:
                raise RecordError(f"record {self.name!r}: field {key!r}: {why}")
        if not values.keys() >= self.required:
            missing = self.required.difference(values)
            raise RecordError(f"record {self.name!r}: missing field "
                              f"{', '.join(repr(k) for k in sorted(missing))}")

    def where(self) -> str:
        if self.cls is None:
            return "its record class"
        return f"{self.cls.__module__}.{self.cls.__qualname__}"


@dataclass(frozen=True)
class Extension:
    """Fields a game adds to a record type declared elsewhere (:func:`extends`)."""

    target: str
    fields: tuple[FieldSpec, ...]


@dataclass_transform(kw_only_default=True, frozen_default=True)
def record(name: str, *, closes_evidence: bool = False, extra: bool = False,
           legacy: bool = False) -> Callable[[R], R]:
    """Declare the record type ``name`` by a subclass of :class:`Record` whose annotations
    are its fields; the class becomes a frozen dataclass with ``TYPE`` and ``SPEC`` (its
    :class:`RecordSpec`). A type that ``closes_evidence`` gets the optional field
    ``evidence`` (the batch's reference, the journal's to give). An ``extra`` type takes
    undeclared fields: its mapping field with default :data:`NO_FIELDS` holds them."""

    def declare(cls: R) -> R:
        assert issubclass(cls, Record), f"{cls.__qualname__} is no Record"
        if closes_evidence:
            cls.__annotations__["evidence"] = "dict[str, Any] | Absent"
            cls.evidence = ABSENT  # type: ignore[attr-defined]
        made: Any = dataclass(frozen=True, kw_only=True)(cls)
        made.TYPE = name
        made.SPEC = RecordSpec(name, _field_specs(made), made, extra, closes_evidence, legacy)
        _planned(made)
        return made

    return declare


@dataclass_transform(kw_only_default=True, frozen_default=True)
def extends(cls: R) -> R:
    """Declare fields a game adds to a record type declared elsewhere (shared or the card
    core's), by a subclass of that type's class whose annotations are those fields; its
    ``SPEC`` is an :class:`Extension` of the type, its records are of that ``TYPE``."""
    base = next((b for b in cls.__mro__[1:] if isinstance(b.__dict__.get("SPEC"), RecordSpec)),
                None)
    assert base is not None, f"{cls.__qualname__} extends no record type"
    made: Any = dataclass(frozen=True, kw_only=True)(cls)
    own = base.SPEC.by_key  # type: ignore[attr-defined]
    made.SPEC = Extension(base.TYPE,  # type: ignore[attr-defined]
                          tuple(f for f in _field_specs(made) if f.key not in own))
    _planned(made)
    return made


@dataclass_transform(kw_only_default=True, frozen_default=True)
def group(cls: R) -> R:
    """Declare a :class:`Group` of optional fields (a frozen dataclass)."""
    assert issubclass(cls, Group), f"{cls.__qualname__} is no Group"
    made: Any = dataclass(frozen=True, kw_only=True)(cls)
    _planned(made)
    return made


@cache
def _hints(cls: type) -> dict[str, Any]:
    # Each class's annotations in its own module's names (a base's in its own).
    return typing.get_type_hints(cls, localns={"Absent": Absent, "Any": Any})


def _group_of(hint: Any) -> type[Group] | None:
    return hint if isinstance(hint, type) and issubclass(hint, Group) else None


def _field_specs(cls: type) -> tuple[FieldSpec, ...]:
    hints = _hints(cls)
    out: list[FieldSpec] = []
    for f in fields(cls):
        if f.default is NO_FIELDS:
            continue  # its items are declared elsewhere, or undeclared (extra)
        grouped = _group_of(hints[f.name])
        if grouped is not None:
            out += _field_specs(grouped)
            continue
        kinds, nullable, optional = _kinds(hints[f.name])
        out.append(FieldSpec(f.name.rstrip("_"), kinds, nullable,
                             optional or f.default is ABSENT))
    return tuple(out)


def _planned(cls: Any) -> None:
    """Give ``cls`` (a record or group dataclass) its ``_PLAN`` and its ``_TAIL``."""
    hints = _hints(cls)
    plan = tuple((f.name, f.name.rstrip("_"),
                  _FLAT if f.default is NO_FIELDS else _group_of(hints[f.name]))
                 for f in fields(cls))
    cls._PLAN = plan
    simple = [how is None and attr == key for attr, key, how in plan]
    # Plain fields first, then only fields that hold fields, and no name changed.
    first_special = simple.index(False) if False in simple else len(simple)
    tail = plan[first_special:]
    cls._TAIL = tail if all(how is not None for _a, _k, how in tail) else None


def _kinds(hint: Any) -> tuple[tuple[type, ...] | None, bool, bool]:
    """(Python types a value may have or None for any, may be null, may be absent)."""
    if hint is Any:
        return None, True, False
    options = typing.get_args(hint) if isinstance(hint, types.UnionType) or (
        typing.get_origin(hint) is typing.Union) else (hint,)
    kinds: list[type] = []
    nullable = optional = False
    for option in options:
        if option is type(None):
            nullable = True
        elif option is Absent:
            optional = True
        elif option is Any:
            return None, True, optional
        else:
            base = typing.get_origin(option) or option
            kinds.extend((int, float) if base is float else (list, tuple) if base is list
                         else (base,))
    return tuple(kinds), nullable, optional


def _names(kinds: tuple[type, ...]) -> str:
    return " or ".join(dict.fromkeys(k.__name__ for k in kinds if k is not tuple))


def _short(value: Any) -> str:
    return given(value, 40)


def unpack(record: Record, t: float | None = None) -> tuple[str, dict[str, Any]]:
    """The type of ``record`` and the fields of its body, with ``t`` when given: what an
    emit reads of it (the table's, a recovery's, a simulation's that journals nothing)."""
    fields = record.body()
    if t is not None:
        fields["t"] = t
    return record.TYPE, fields


# -- schemas ---------------------------------------------------------------------------
Schema = dict[str, RecordSpec]


def _merge(declared: Iterable[type]) -> Schema:
    """The record types and extensions of ``declared`` (classes made by :func:`record` and
    :func:`extends`), extensions applied: one table's schema, each type declared once."""
    out: Schema = {}
    extensions: list[Extension] = []
    for cls in declared:
        spec = cls.SPEC  # type: ignore[attr-defined]
        if isinstance(spec, Extension):
            extensions.append(spec)
            continue
        old = out.get(spec.name)
        assert old is None or old.cls is spec.cls, f"record {spec.name!r} declared twice"
        out[spec.name] = spec
    for ext in extensions:
        assert ext.target in out, f"extension of undeclared record {ext.target!r}"
        out[ext.target] = out[ext.target].extended(ext.fields)
    return out


def _union(first: RecordSpec, second: RecordSpec) -> RecordSpec:
    """One type as two games declare it (``coup_start`` at Mini-Bacará and at Black Jack):
    a field of both takes the values either allows; a field of one only is optional."""
    if first == second:
        return first
    keys = dict.fromkeys([f.key for f in first.fields] + [f.key for f in second.fields])
    merged = []
    for key in keys:
        a, b = first.by_key.get(key), second.by_key.get(key)
        if a is None or b is None:
            one = a or b
            assert one is not None
            merged.append(FieldSpec(key, one.kinds, one.nullable, True))
            continue
        kinds = (None if a.kinds is None or b.kinds is None
                 else tuple(dict.fromkeys(a.kinds + b.kinds)))
        merged.append(FieldSpec(key, kinds, a.nullable or b.nullable, a.optional or b.optional))
    return RecordSpec(first.name, tuple(merged), None, first.extra or second.extra,
                      first.closes_evidence or second.closes_evidence,
                      first.legacy and second.legacy)


class Declares(Protocol):
    """What the store reads of a game's spec (``controller.core.contract.GameSpec``): its
    table's ``name`` and the ``records`` it declares."""

    @property
    def name(self) -> str: ...

    @property
    def records(self) -> tuple[type, ...]: ...


def schema(game: Declares) -> Schema:
    """The record types the table of ``game`` writes and reads (shared, its game's,
    extended); made once a game."""
    return _schema(game.name, game.records)


@cache
def _schema(name: str, records: tuple[type, ...]) -> Schema:
    from controller.store import shared

    return _merge((*shared.RECORDS, *records))


def any_schema(games: Iterable[Declares]) -> Schema:
    """Every record type of each of ``games``, each game's extensions applied: for the
    tools that read a journal whose game they cannot tell (every registered game, the
    ``Config.games`` they are handed). A type two games declare (each table's
    schema has one of them) reads as either (:func:`_union`)."""
    out: Schema = {}
    for game in games:
        for type_, spec in schema(game).items():
            old = out.get(type_)
            out[type_] = spec if old is None else _union(old, spec)
    return out


def build(known: Schema, type_: str, values: Mapping[str, Any]) -> RecordSpec:
    """Check the fields a table is about to journal; return the record's spec.

    Raises:
        RecordError: the type is not declared for this table (or is read-only: a legacy
            type), or a field is unknown, missing or of the wrong type.
    """
    spec = known.get(type_)
    if spec is None or spec.legacy:
        raise RecordError(f"record type {type_!r} is not declared for this table: declare "
                          "it with @record in the game's records.py and list it in its "
                          "GameSpec(records=...) (controller/store/records.py)")
    spec.check(values)
    return spec


def check(known: Schema, rec: Mapping[str, Any]) -> RecordSpec:
    """Check a record read back from the journal (a dict with ``type``, ``seq``, ``t``).

    Raises:
        RecordError: as :func:`build` (a legacy type is read, never made); also a ``seq``
            or ``t`` that is not a number.
    """
    type_ = rec.get("type")
    spec = known.get(type_) if isinstance(type_, str) else None
    if spec is None:
        raise RecordError(f"record type {type_!r} is not one this table writes")
    if type(rec.get("seq")) is not int or type(rec.get("t")) not in (int, float):
        raise RecordError(f"record {type_!r}: 'seq' or 't' is not a number")
    spec.check(rec)
    return spec
