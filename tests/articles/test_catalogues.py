"""The catalogues (tests/articles/seed_NNN.toml) against the seed texts and the test files.

Each catalogue lists exactly the articles and lettered items its seed's text contains, no
more and no fewer; the ids are read here from the Spanish text (../shared/seeds, reached as
``REPO.parent / "shared"``; skipped where it is missing). Every test file names a seed that
has a catalogue, and the real catalogues fit the inspector's 100-column table.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import audit
import pytest
from conftest import SHARED

SEEDS = SHARED / "seeds"
CATALOGUES = audit.load_catalogues(audit.HERE)


def seed_text(number: str) -> str:
    found = sorted(SEEDS.glob(f"{number}_*.txt"))
    if not found:
        pytest.skip(f"{SEEDS} has no seed {number}")
    return found[0].read_text(encoding="utf-8")


def ids_of_headed_text(text: str, heading: str, item: str) -> set[str]:
    """Ids from a text of article headings (``heading``, group 1 the number) and lettered
    items (``item``, group 1 the letter), each item in the article whose heading comes
    before it. Text before the first heading is the end of the article before it (the
    scan begins inside it): that article and its items are counted too."""
    marks = sorted([(m.start(), "art", m[1]) for m in re.finditer(heading, text)]
                   + [(m.start(), "item", m[1]) for m in re.finditer(item, text)])
    first = next(int(v) for _, kind, v in marks if kind == "art")
    current = str(first - 1)
    ids = {current} if marks[0][1] == "item" or text[:marks[0][0]].strip() else set()
    for _, kind, value in marks:
        if kind == "art":
            current = value
            ids.add(value)
        else:
            ids.add(current + value)
    return ids


def test_seed_000_catalogue_is_the_decree_s_articles_and_items() -> None:
    data = json.loads(seed_text("000"))
    ids = set()
    for article in data["articulos"]:
        ids.add(article["nroArticulo"])
        items = re.findall(r"(?:^|\n)\s*([a-z])\)\s", article["textoArticulo"])
        ids |= {article["nroArticulo"] + letter for letter in items}
    assert {e.id for e in CATALOGUES["000"].entries} == ids


def test_seed_001_catalogue_is_the_scan_s_articles_and_items() -> None:
    # "Articulo 13º.- ..."; items "a.- ...". The Poker Americano norm after Art. 16 cites
    # "Articulo 24º, que" and "inciso b)": neither pattern matches those.
    text = seed_text("001")
    ids = ids_of_headed_text(text, r"Articulo (\d+)º\.-", r"(?<![A-Za-z])([a-z])\.- ")
    assert {e.id for e in CATALOGUES["001"].entries} == ids
    assert "12" in ids and "1" not in ids  # the scan begins inside Art. 12


def test_seed_002_catalogue_is_the_scan_s_articles_and_items() -> None:
    text = seed_text("002")
    ids = ids_of_headed_text(text, r"Artículo (\d+)\.-", r"(?<![A-Za-z(])([a-z])\) ")
    assert {e.id for e in CATALOGUES["002"].entries} == ids
    assert "4" in ids  # the scan begins inside Art. 4


def test_seed_003_catalogue_is_the_numbered_paragraphs_and_items() -> None:
    # Each paragraph is followed by its label "num. 1 / num. N"; its items "a) ..." precede it.
    text = seed_text("003")
    ids: set[str] = set()
    letters: list[str] = []
    for m in re.finditer(r"^([a-z])\) |^num\. 1\nnum\. (\d+)$", text, re.MULTILINE):
        if m[1]:
            letters.append(m[1])
        else:
            ids |= {m[2], *(m[2] + letter for letter in letters)}
            letters = []
    assert not letters
    assert {e.id for e in CATALOGUES["003"].entries} == ids
    assert {i for i in ids if i.isdigit()} == {str(n) for n in range(1, 23)}


def test_seed_004_catalogue_is_the_scan_s_articles_and_items() -> None:
    text = seed_text("004")
    ids = ids_of_headed_text(text, r"Articulo (\d+)º\.-", r"(?<![A-Za-z])([a-z])\.- ")
    assert {e.id for e in CATALOGUES["004"].entries} == ids
    assert {"2", "2e", "2i"} <= ids and "2d" not in ids  # the scan begins at Art. 2 (e)


def test_every_seed_has_a_catalogue_in_seed_order() -> None:
    assert list(CATALOGUES) == ["000", "001", "002", "003", "004"]
    for seed in CATALOGUES.values():
        numbers = [audit._split_id(e.id) for e in seed.entries]
        assert numbers == sorted(numbers), seed.path.name


def test_every_test_file_has_a_catalogue() -> None:
    files = sorted(Path(audit.HERE).glob("test_seed_*.py"))
    assert files
    for path in files:
        m = audit.TEST_FILE.fullmatch(path.name)
        assert m and m[1] in CATALOGUES, path.name
        assert CATALOGUES[m[1]].game in path.stem, path.name


def test_the_real_table_fits_100_columns() -> None:
    result = audit.audit(CATALOGUES, {})
    for verbose in (False, True):
        table = audit.render(result, verbose=verbose)
        assert max(len(line) for line in table.splitlines()) <= 100
