"""``make audit``: run the article tests of every seed and print the inspector's table.

Runs pytest on this folder with a small plugin that keeps each test's outcome, maps every
test of ``test_seed_NNN_<game>.py`` (and of ``test_seed_NNN_<game>_<part>.py``, when a
seed's tests span files) to the entries of the catalogue ``seed_NNN.toml`` its name cites
(``test_art_12a_...``, ``test_num_8c_...``: README.md here), and prints one row
per entry: seed, article, what it says, the tests, and PASS, FAIL, "not implemented" (in
the controller's scope, no test) or "not the controller's" (staff, casino, equipment...).

Usage: ``python tests/articles/audit.py [--verbose] [--width N] [--dir DIR] [-- PYTEST ARGS]``.
Exit 0 when every test passed and every test maps to an entry; 1 when a test failed, a
test's name cites no entry, a file names another game than its seed's, or one test name is
used in two files of a seed; 2 for an unreadable catalogue or bad arguments (one line on
stderr naming the file, line and field).
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
import tomllib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

SCOPES: Mapping[str, str] = {
    "controller": "the controller enforces, decides or records it",
    "staff": "the dealer's or the staff's conduct",
    "casino": "the operator's duties (premises, notices)",
    "equipment": "the table's furniture and devices",
    "authority": "the regulator's powers",
    "formal": "a formal clause of the norm",
}
PASS, FAIL, SKIPPED = "PASS", "FAIL", "skipped"
NOT_IMPLEMENTED, NOT_OURS = "not implemented", "not the controller's"

CATALOGUE_NAME = re.compile(r"seed_(\d{3})\.toml")
TEST_FILE = re.compile(r"test_seed_(\d{3})_(\w+)\.py")
ENTRY_ID = re.compile(r"(\d+)([a-z]?)")
REF = re.compile(r"(\d+)([a-z]*)")


class CatalogueError(Exception):
    """A catalogue that cannot be read: the message names the file, line and field."""


@dataclass(frozen=True)
class Entry:
    """One article of a seed, or one lettered item of it (``id`` "12" or "12a")."""

    id: str
    summary: str
    scope: str
    note: str = ""

    @property
    def in_scope(self) -> bool:
        return self.scope == "controller"

    def label(self, word: str) -> str:
        """How the table shows it: ``Art. 12 (a)``, ``num. 8``."""
        number, letter = _split_id(self.id)
        return f"{word} {number}" + (f" ({letter})" if letter else "")


@dataclass(frozen=True)
class Seed:
    """A seed's catalogue (``seed_NNN.toml``)."""

    seed: str
    title: str
    source: str
    game: str
    prefix: str
    label: str
    missing: tuple[str, ...]
    note: str
    entries: tuple[Entry, ...]
    path: Path

    def entry(self, id_: str) -> Entry | None:
        return next((e for e in self.entries if e.id == id_), None)


def _split_id(id_: str) -> tuple[int, str]:
    m = ENTRY_ID.fullmatch(id_)
    assert m, id_
    return int(m[1]), m[2]


def _line_of(text: str, needle: str) -> int:
    """The 1-based line of the first ``needle`` in ``text`` (1 when absent)."""
    i = text.find(needle)
    return text.count("\n", 0, i) + 1 if i >= 0 else 1


HEAD_KEYS = ("seed", "title", "source", "game", "prefix", "label")
ENTRY_KEYS = ("id", "summary", "scope", "note")


def load_catalogue(path: Path) -> Seed:
    """Read and check one catalogue (format: README.md here).

    Raises:
        CatalogueError: bad TOML, an unknown, missing or mistyped field, an unknown scope,
            a malformed or repeated id, or a seed number that differs from the file name's.
    """
    text = path.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CatalogueError(f"{path}: {exc}") from None

    def fail(line: int, key: str, why: str) -> CatalogueError:
        return CatalogueError(f"{path}:{line}: {key}: {why}")

    def string(table: Mapping[str, Any], key: str, line: int, where: str = "",
               required: bool = True) -> str:
        value = table.get(key, None if required else "")
        if not isinstance(value, str) or (required and not value.strip()):
            raise fail(line, where + key, "a non-empty string is required")
        return value.strip()

    for key in data:
        if key not in (*HEAD_KEYS, "missing", "note", "article"):
            raise fail(_line_of(text, key), key, "unknown key")
    head = {k: string(data, k, _line_of(text, f"{k} =")) for k in HEAD_KEYS}
    m = CATALOGUE_NAME.fullmatch(path.name)
    if not m or m[1] != head["seed"]:
        raise fail(_line_of(text, "seed ="), "seed",
                   f"{head['seed']!r} does not match the file name {path.name}")
    if not re.fullmatch(r"[a-z]+", head["prefix"]):
        raise fail(_line_of(text, "prefix ="), "prefix", "lower-case letters only")
    missing = data.get("missing", [])
    if not isinstance(missing, list) or not all(isinstance(x, str) for x in missing):
        raise fail(_line_of(text, "missing ="), "missing", "a list of strings is required")
    note = string(data, "note", _line_of(text, "note ="), required=False)
    articles = data.get("article")
    if not isinstance(articles, list) or not articles:
        raise fail(1, "article", "at least one [[article]] is required")
    entries: list[Entry] = []
    starts = [m.start() for m in re.finditer(r"^\[\[article\]\]", text, re.MULTILINE)]
    if len(starts) != len(articles):
        raise fail(_line_of(text, "article"), "article", "write each entry as an [[article]] "
                   "table, its header alone on its line")
    for n, art in enumerate(articles, 1):
        # The lines of this [[article]] table: from its header to the next one.
        block = text[starts[n - 1]:starts[n] if n < len(starts) else len(text)]
        first = text.count("\n", 0, starts[n - 1]) + 1

        def at(key: str, block: str = block, first: int = first) -> int:
            m = re.search(rf"^{re.escape(key)}\s*=", block, re.MULTILINE)
            return first + (block.count("\n", 0, m.start()) if m else 0)

        where = f"article #{n} "
        for key in art:
            if key not in ENTRY_KEYS:
                raise fail(at(key), where + key,
                           f"unknown key (expected {', '.join(ENTRY_KEYS)})")
        id_ = string(art, "id", at("id"), where)
        if not ENTRY_ID.fullmatch(id_):
            raise fail(at("id"), where + "id", f"{id_!r}: an article number and an optional "
                       'item letter, e.g. "12" or "12a"')
        if any(e.id == id_ for e in entries):
            raise fail(at("id"), where + "id", f"{id_!r} is listed twice")
        scope = string(art, "scope", at("scope"), where)
        if scope not in SCOPES:
            raise fail(at("scope"), where + "scope", f"{scope!r}: one of {', '.join(SCOPES)}")
        entries.append(Entry(id_, string(art, "summary", at("summary"), where), scope,
                             string(art, "note", at("note"), where, required=False)))
    return Seed(**head, missing=tuple(missing), note=note, entries=tuple(entries), path=path)


def load_catalogues(directory: Path) -> dict[str, Seed]:
    """Every ``seed_NNN.toml`` of ``directory``, by seed number, in order."""
    seeds = [load_catalogue(p) for p in sorted(directory.glob("seed_*.toml"))]
    return {s.seed: s for s in seeds}


# -- test names -----------------------------------------------------------------------
class NamingError(ValueError):
    """A test name that does not follow the convention (README.md)."""


def cited_ids(test_name: str, prefix: str) -> tuple[str, ...]:
    """The entry ids a test's name cites, in order.

    ``test_<prefix>_<ref>[_<ref>...]_<what>``: each ref is an article number with the
    letters of its items attached (``12`` the article, ``12a`` item (a), ``12ab`` items
    (a) and (b)); the first part that is not a ref starts the description, which must not
    be empty. ``[param]`` suffixes of parametrized tests are ignored.

    Raises:
        NamingError: the name lacks ``test_<prefix>_``, a ref, or a description.
    """
    name = test_name.split("[", 1)[0]
    head = f"test_{prefix}_"
    if not name.startswith(head):
        raise NamingError(f"{name}: an article test's name starts with {head!r}")
    parts = name[len(head):].split("_")
    ids: list[str] = []
    while parts and (m := REF.fullmatch(parts[0])):
        number, letters = m[1], m[2]
        ids += [number + letter for letter in letters] if letters else [number]
        parts.pop(0)
    if not ids:
        raise NamingError(f"{name}: no article after {head!r} (e.g. {head}12a_...)")
    if not any(parts):
        raise NamingError(f"{name}: no description after the articles")
    return tuple(dict.fromkeys(ids))


def split_nodeid(nodeid: str) -> tuple[str, str]:
    """``path/to/test_x.py::Class::test_name[param]`` → (``test_x.py``, ``test_name[param]``)."""
    file_part, _, rest = nodeid.partition("::")
    return Path(file_part).name, rest.rsplit("::", 1)[-1]


def file_of_game(rest: str, game: str) -> bool:
    """Whether ``test_seed_NNN_<rest>.py`` is a file of ``game``'s seed: ``rest`` is the game
    (``roulette``) or the game and a part (``roulette_art13``: a seed's tests may span
    files, one part each)."""
    return rest == game or (rest.startswith(game + "_") and len(rest) > len(game) + 1)


# -- the audit ------------------------------------------------------------------------
@dataclass
class Row:
    """One line of the table: an entry, its tests (name → outcome) and its status."""

    seed: Seed
    entry: Entry
    tests: dict[str, str] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)  # test name -> its file's part

    @property
    def status(self) -> str:
        if not self.entry.in_scope:
            return NOT_OURS
        outcomes = set(self.tests.values())
        if not outcomes:
            return NOT_IMPLEMENTED
        if outcomes - {"passed", "skipped"}:
            return FAIL
        return PASS if "passed" in outcomes else SKIPPED


@dataclass
class Audit:
    """The rows of every seed, the problems that fail the audit, the other tests, and notes
    on what was not checked (they do not fail it)."""

    rows: list[Row]
    problems: list[str]
    others: Counter[str]
    notes: list[str] = field(default_factory=list)

    def failed(self) -> bool:
        return bool(self.problems) or any(r.status == FAIL for r in self.rows) or any(
            outcome not in ("passed", "skipped") for outcome in self.others)


def audit(seeds: Mapping[str, Seed], outcomes: Mapping[str, str],
          errors: Iterable[str] = ()) -> Audit:
    """Map test outcomes (nodeid → ``passed``, ``failed``, ``skipped``, ``error``...) to rows.

    A test of a ``test_seed_NNN_*.py`` file whose name cites no entry of seed NNN, cites an
    entry out of the controller's scope, belongs to a seed without a catalogue, or sits in a
    file named after another game than the catalogue's is a problem; so is a test name used
    in two files of one seed (the table lists tests by name), and every collection error in
    ``errors``. Tests of other files count apart.
    """
    rows = {(s.seed, e.id): Row(s, e) for s in seeds.values() for e in s.entries}
    problems = [f"collection error: {e}" for e in errors]
    others: Counter[str] = Counter()
    file_of: dict[tuple[str, str], str] = {}  # (seed, test name) -> its file
    for nodeid, outcome in outcomes.items():
        filename, name = split_nodeid(nodeid)
        m = TEST_FILE.fullmatch(filename)
        if not m:
            others[outcome] += 1
            continue
        seed = seeds.get(m[1])
        if seed is None:
            problems.append(f"{nodeid}: no catalogue seed_{m[1]}.toml ({outcome})")
            continue
        if not file_of_game(m[2], seed.game):
            problems.append(f"{nodeid}: seed {seed.seed}'s files are test_seed_{seed.seed}_"
                            f"{seed.game}.py or test_seed_{seed.seed}_{seed.game}_<part>.py "
                            f"({seed.path.name}: game = {seed.game!r}) ({outcome})")
            continue
        other = file_of.setdefault((seed.seed, name), filename)
        if other != filename:
            problems.append(f"{nodeid}: {name} is a test of {other} too: a seed's test names "
                            f"must differ across its files ({outcome})")
            continue
        try:
            ids = cited_ids(name, seed.prefix)
        except NamingError as exc:
            problems.append(f"{nodeid}: {exc} ({outcome})")
            continue
        for id_ in ids:
            entry = seed.entry(id_)
            if entry is None:
                problems.append(f"{nodeid}: {seed.label} {id_} is not in {seed.path.name}")
            elif not entry.in_scope:
                problems.append(f"{nodeid}: {entry.label(seed.label)} is '{entry.scope}' in "
                                f"{seed.path.name}, not the controller's: a test contradicts it")
            else:
                rows[seed.seed, id_].tests[name] = outcome
                rows[seed.seed, id_].files[name] = m[2]
    return Audit(list(rows.values()), problems, others)


# -- the table ------------------------------------------------------------------------
SEED_W, ART_W, TESTS_W, RESULT_W = 4, 11, 5, len(NOT_OURS)


def render(result: Audit, verbose: bool = False, width: int = 100) -> str:
    """The inspector's table, ``width`` columns wide at most (the summary column wraps)."""
    sum_w = max(20, width - (SEED_W + ART_W + TESTS_W + RESULT_W + 4))
    lines: list[str] = []

    def row(seed: str, art: str, text: str, tests: str, res: str) -> None:
        wrapped = textwrap.wrap(text, sum_w, break_on_hyphens=False) or [""]
        lines.append(f"{seed:<{SEED_W}} {art:<{ART_W}} {wrapped[0]:<{sum_w}} "
                     f"{tests:>{TESTS_W}} {res}".rstrip())
        indent = " " * (SEED_W + ART_W + 2)
        lines.extend(indent + more for more in wrapped[1:])

    def para(text: str, lead: str) -> None:
        lines.extend(textwrap.wrap(text, width, initial_indent=lead, break_on_hyphens=False,
                                   subsequent_indent=" " * len(lead)))

    row("Seed", "Article", "What it says", "Tests", "Result")
    lines.append(" ".join("-" * w for w in (SEED_W, ART_W, sum_w, TESTS_W, RESULT_W)))
    current: Seed | None = None
    for r in result.rows:
        if r.seed is not current:
            current = r.seed
            lines.append("")
            para(f"Seed {current.seed}, {current.title} (table {current.game}): "
                 f"{current.source}", "")
            para("; ".join(current.missing) or "nothing", "  missing from the scan: ")
            if current.note:
                para(current.note, "  ")
        row(r.seed.seed, r.entry.label(r.seed.label), r.entry.summary,
            str(len(r.tests)), r.status)
        by_file = Counter(r.files.values())
        if len(by_file) > 1:  # the tests span files: e.g. a wheel on GPIO and one over serial
            para(", ".join(f"{part} {n}" for part, n in sorted(by_file.items())),
                 " " * (SEED_W + ART_W + 2) + "by file: ")
        if verbose:
            if r.entry.note:
                para(r.entry.note, " " * (SEED_W + ART_W + 2) + "note: ")
            if not r.entry.in_scope:
                para(f"{r.entry.scope}: {SCOPES[r.entry.scope]}", " " * (SEED_W + ART_W + 2))
            for name, outcome in r.tests.items():
                para(f"{name} {outcome}", " " * (SEED_W + ART_W + 2) + "- ")
    lines.append("")
    seeds = list(dict.fromkeys(r.seed.seed for r in result.rows))
    order = (PASS, FAIL, SKIPPED, NOT_IMPLEMENTED, NOT_OURS)
    for seed in seeds:
        counts = Counter(r.status for r in result.rows if r.seed.seed == seed)
        total = sum(counts.values())
        tests = len({t for r in result.rows if r.seed.seed == seed for t in r.tests})
        parts = ", ".join(f"{counts[s]} {s}" for s in order if counts[s])
        lines.append(f"seed {seed}: {total} entries, {tests} tests: {parts}")
    if result.others:
        lines.append("other tests of the folder: " + ", ".join(
            f"{n} {o}" for o, n in sorted(result.others.items())))
    lines.append(f"'{NOT_IMPLEMENTED}': in the controller's scope, and no test here shows it.")
    for problem in result.problems:
        para(problem, "PROBLEM: ")
    for note in result.notes:
        para(note, "NOTE: ")
    lines.append("AUDIT FAILED" if result.failed() else "AUDIT PASSED")
    return "\n".join(lines) + "\n"


# -- running pytest -------------------------------------------------------------------
# Worse outcomes replace better ones across a test's setup, call and teardown reports.
SEVERITY: Mapping[str, int] = {"passed": 0, "skipped": 1}


class Collector:
    """A pytest plugin keeping each test's outcome: ``passed``, ``skipped``, ``failed``,
    ``error`` (setup or teardown failed), ``xfailed`` or ``xpassed`` (both fail an article:
    README.md), the worst of its reports."""

    def __init__(self) -> None:
        self.outcomes: dict[str, str] = {}
        self.errors: list[str] = []

    def pytest_runtest_logreport(self, report: Any) -> None:
        if hasattr(report, "wasxfail"):
            outcome = "xfailed" if report.skipped else "xpassed"
        elif report.failed:
            outcome = "failed" if report.when == "call" else "error"
        else:
            outcome = report.outcome
        prior = self.outcomes.get(report.nodeid)
        if prior is None or SEVERITY.get(outcome, 2) > SEVERITY.get(prior, 2):
            self.outcomes[report.nodeid] = outcome

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:
            self.errors.append(report.nodeid or "(the folder)")


def run_pytest(directory: Path, extra: Sequence[str]) -> tuple[int, Collector]:
    """Run pytest on ``directory`` in this process; its exit code and the outcomes."""
    import pytest

    collector = Collector()
    rc = pytest.main(["-q", "-p", "no:cacheprovider", str(directory), *extra],
                     plugins=[collector])
    return int(rc), collector


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="audit", description="Run the article tests by seed and print the table.")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="list each entry's tests and notes")
    parser.add_argument("--width", type=int, default=100, help="columns (default 100)")
    parser.add_argument("--dir", type=Path, default=HERE,
                        help="the folder of catalogues and tests (default: this one)")
    parser.add_argument("pytest_args", nargs="*", help="after --: passed to pytest")
    args = parser.parse_args(argv)
    try:
        seeds = load_catalogues(args.dir)
    except (CatalogueError, OSError) as exc:
        print(f"audit: {exc}", file=sys.stderr)
        return 2
    if not seeds:
        print(f"audit: {args.dir}: no seed_NNN.toml catalogue", file=sys.stderr)
        return 2
    rc, collector = run_pytest(args.dir, args.pytest_args)
    if rc in (2, 3, 4) and not collector.outcomes:  # interrupted, internal or usage error
        print(f"audit: pytest did not run the tests (exit {rc}; its message is above): "
              "no table", file=sys.stderr)
        return 1
    result = audit(seeds, collector.outcomes, collector.errors)
    if rc not in (0, 5) and not result.failed():  # 5: no tests; others: pytest said why
        result.problems.append(f"pytest exited {rc}")
    unchecked = sum(1 for nodeid, outcome in collector.outcomes.items()
                    if outcome == "skipped" and "test_catalogues.py" in nodeid)
    if unchecked:
        checks = f"{unchecked} check{'s' * (unchecked != 1)}"
        result.notes.append(f"{checks} of the catalogues against the seeds' text skipped "
                            "(../shared/seeds is not beside the checkout): the articles "
                            "listed are the catalogues', not checked against the seeds")
    print()
    print(render(result, args.verbose, args.width), end="")
    if args.pytest_args:
        print(f"(pytest arguments {' '.join(args.pytest_args)}: only the tests they select "
              "are counted)")
    return 1 if result.failed() else 0


if __name__ == "__main__":
    sys.exit(main())
