"""The audit runner (tests/articles/audit.py): names to articles, the table, the exit code.

Fake catalogues and fake outcomes go through the runner's functions; three runs of the
script itself (a subprocess, as ``make audit`` runs it) on a folder of fake tests give the
exit codes a CI job or an inspector relies on.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import audit
import pytest

FAKE = """\
seed = "007"
title = "Test game"
source = "Nowhere, a fake regulation"
game = "fake"
prefix = "art"
label = "Art."
missing = ["Art. 1 (page 1)"]

[[article]]
id = "2"
summary = "Something the controller decides"
scope = "controller"

[[article]]
id = "2a"
summary = "A lettered item of it"
scope = "controller"

[[article]]
id = "2b"
summary = "Another item, with a summary long enough to wrap over more than one line of the table"
scope = "controller"

[[article]]
id = "3"
summary = "Something the staff do"
scope = "staff"
"""


def fake_seed(tmp_path: Path, text: str = FAKE, name: str = "seed_007.toml") -> audit.Seed:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return audit.load_catalogue(path)


def node(name: str, file: str = "test_seed_007_fake.py") -> str:
    return f"tests/articles/{file}::{name}"


# -- names ------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "prefix", "ids"), [
    ("test_art_12a_two_revolutions", "art", ("12a",)),
    ("test_art_12_valid_throw", "art", ("12",)),
    ("test_art_12ab_both[cw-3]", "art", ("12a", "12b")),
    ("test_art_5e_6b_cut_card", "art", ("5e", "6b")),
    ("test_art_9a_10_example_coup", "art", ("9a", "10")),
    ("test_num_8c_three_times_the_ante", "num", ("8c",)),
])
def test_a_name_cites_its_articles_and_letters(name: str, prefix: str,
                                               ids: tuple[str, ...]) -> None:
    assert audit.cited_ids(name, prefix) == ids


@pytest.mark.parametrize(("name", "prefix"), [
    ("test_art12a_old_style", "art"),
    ("test_art_valid_throw", "art"),
    ("test_art_12a", "art"),
    ("test_num_8c_wrong_prefix", "art"),
    ("test_helper", "art"),
])
def test_a_name_off_the_convention_is_refused(name: str, prefix: str) -> None:
    with pytest.raises(audit.NamingError):
        audit.cited_ids(name, prefix)


# -- catalogues -------------------------------------------------------------------------
@pytest.mark.parametrize(("change", "where"), [
    (('scope = "staff"', 'scope = "janitor"'), ":27: article #4 scope"),
    (('id = "2b"', 'id = "2a"'), ":20: article #3 id"),
    (('id = "2b"', 'id = "2.b"'), ":20: article #3 id"),
    (('seed = "007"', 'seed = "008"'), ":1: seed"),
    (('summary = "A lettered item of it"', 'summary = ""'), ":16: article #2 summary"),
    (('label = "Art."', 'label = "Art."\ncolour = "red"'), ":7: colour"),
    (('title = "Test game"', 'title = "Test game'), "line 2"),
])
def test_a_bad_catalogue_names_its_file_line_and_field(tmp_path: Path, change: tuple[str, str],
                                                       where: str) -> None:
    with pytest.raises(audit.CatalogueError) as err:
        fake_seed(tmp_path, FAKE.replace(*change))
    assert str(tmp_path / "seed_007.toml") in str(err.value)
    assert where in str(err.value)


# -- the table ----------------------------------------------------------------------------
def test_statuses_problems_and_the_table(tmp_path: Path) -> None:
    seed = fake_seed(tmp_path)
    result = audit.audit({"007": seed}, {
        node("test_art_2_decides"): "passed",
        node("test_art_2a_item[1]"): "passed",
        node("test_art_2a_item[2]"): "failed",
        node("test_art_other_thing"): "passed",        # no article: a problem
        node("test_art_9_not_in_the_seed"): "passed",  # not in the catalogue: a problem
        node("test_art_3_staff_thing"): "passed",      # out of scope: a problem
        node("test_x", "test_other.py"): "passed",     # another file: counted apart
    })
    status = {r.entry.id: r.status for r in result.rows}
    assert status == {"2": "PASS", "2a": "FAIL", "2b": "not implemented",
                      "3": "not the controller's"}
    assert len(result.problems) == 3
    assert result.failed()
    table = audit.render(result)
    assert all(len(line) <= 100 for line in table.splitlines())
    rows = [line for line in table.splitlines() if line.startswith("007 ")]
    assert rows[0].split() == ["007", "Art.", "2", "Something", "the", "controller",
                               "decides", "1", "PASS"]
    assert rows[1].endswith(" 2 FAIL")
    assert rows[2].endswith(" 0 not implemented")
    assert rows[3].endswith(" 0 not the controller's")
    assert "missing from the scan: Art. 1 (page 1)" in table
    assert "PROBLEM: tests/articles/test_seed_007_fake.py::test_art_9_not_in_the_seed" in table
    assert table.rstrip().endswith("AUDIT FAILED")
    verbose = audit.render(result, verbose=True)
    assert "- test_art_2a_item[2] failed" in verbose


def test_skipped_and_failing_outcomes(tmp_path: Path) -> None:
    seed = fake_seed(tmp_path)
    result = audit.audit({"007": seed}, {node("test_art_2_a"): "skipped",
                                         node("test_art_2a_b"): "xfailed",
                                         node("test_art_2b_c[x]"): "skipped",
                                         node("test_art_2b_d[y]"): "passed"})
    status = {r.entry.id: r.status for r in result.rows}
    assert status["2"] == "skipped" and status["2a"] == "FAIL" and status["2b"] == "PASS"


def test_all_passing_with_articles_not_implemented_passes(tmp_path: Path) -> None:
    seed = fake_seed(tmp_path)
    result = audit.audit({"007": seed}, {node("test_art_2_decides"): "passed",
                                         node("test_x", "test_other.py"): "passed"})
    assert not result.failed()
    table = audit.render(result)
    assert "seed 007: 4 entries, 1 tests: 1 PASS, 2 not implemented, 1 not the controller's" \
        in table
    assert "other tests of the folder: 1 passed" in table
    assert table.rstrip().endswith("AUDIT PASSED")


# -- a seed's tests across files ------------------------------------------------------------
def test_a_seeds_tests_may_span_files_one_part_each(tmp_path: Path) -> None:
    seed = fake_seed(tmp_path)
    result = audit.audit({"007": seed}, {
        node("test_art_2_decides"): "passed",
        node("test_art_2a_item", "test_seed_007_fake_more.py"): "passed",
        node("test_art_2b_item[x]", "test_seed_007_fake_art2b.py"): "failed",
    })
    status = {r.entry.id: r.status for r in result.rows}
    assert status == {"2": "PASS", "2a": "PASS", "2b": "FAIL", "3": "not the controller's"}
    assert result.problems == []
    assert "seed 007: 4 entries, 3 tests: 2 PASS, 1 FAIL" in audit.render(result)


def test_an_article_tested_in_several_files_shows_the_count_of_each(tmp_path: Path) -> None:
    # Issue 12: Art. 12 is covered for a wheel on GPIO and for one over serial, each in its
    # own file: the table says how many tests each file gives the article.
    seed = fake_seed(tmp_path)
    result = audit.audit({"007": seed}, {
        node("test_art_2a_on_gpio"): "passed",
        node("test_art_2a_on_gpio_too"): "passed",
        node("test_art_2a_over_serial", "test_seed_007_fake_serial.py"): "passed",
        node("test_art_2b_only_here"): "passed",
    })
    table = audit.render(result).splitlines()
    row = next(i for i, line in enumerate(table) if line.startswith("007  Art. 2 (a)"))
    assert table[row + 1].split() == ["by", "file:", "fake", "2,", "fake_serial", "1"]
    assert not any("by file" in line for line in table[row + 2:])


@pytest.mark.parametrize("file", ["test_seed_007_other.py", "test_seed_007_fakeish.py",
                                  "test_seed_007_fake_.py", "test_seed_007_other_fake.py"])
def test_a_file_named_after_another_game_is_a_problem(tmp_path: Path, file: str) -> None:
    seed = fake_seed(tmp_path)
    result = audit.audit({"007": seed}, {node("test_art_2_decides", file): "passed"})
    (problem,) = result.problems
    assert problem.startswith(f"tests/articles/{file}::test_art_2_decides: ")
    assert "test_seed_007_fake.py or test_seed_007_fake_<part>.py" in problem
    assert result.failed()
    assert {r.entry.id: r.status for r in result.rows}["2"] == "not implemented"


def test_one_test_name_in_two_files_of_a_seed_is_a_problem(tmp_path: Path) -> None:
    # The table lists tests by name: a failure must not hide behind a namesake that passed.
    seed = fake_seed(tmp_path)
    result = audit.audit({"007": seed}, {
        node("test_art_2a_item"): "passed",
        node("test_art_2a_item", "test_seed_007_fake_more.py"): "failed",
    })
    (problem,) = result.problems
    assert "test_art_2a_item is a test of test_seed_007_fake.py too" in problem
    assert result.failed()
    assert audit.render(result).rstrip().endswith("AUDIT FAILED")


# -- the script, as make audit runs it --------------------------------------------------------
PASSING = """\
def test_art_2_decides() -> None:
    assert 1 + 1 == 2
"""


def run_script(folder: Path, test_text: str) -> subprocess.CompletedProcess[str]:
    (folder / "pytest.ini").write_text("[pytest]\n")  # pins pytest's rootdir to the folder
    (folder / "test_seed_007_fake.py").write_text(test_text)
    return subprocess.run([sys.executable, str(Path(audit.__file__)), "--dir", str(folder)],
                          capture_output=True, text=True, timeout=120, check=False)


def test_script_exits_0_when_every_test_passes(tmp_path: Path) -> None:
    fake_seed(tmp_path)
    done = run_script(tmp_path, PASSING)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "AUDIT PASSED" in done.stdout
    assert any(line.startswith("007  Art. 2 ") and line.endswith(" 1 PASS")
               for line in done.stdout.splitlines())


def test_script_exits_1_when_a_test_fails(tmp_path: Path) -> None:
    fake_seed(tmp_path)
    done = run_script(tmp_path, PASSING + "\n\ndef test_art_2a_fails() -> None:\n"
                      "    assert 1 + 1 == 3\n")
    assert done.returncode == 1
    assert any(line.startswith("007  Art. 2 (a) ") and line.endswith(" 1 FAIL")
               for line in done.stdout.splitlines())
    assert "AUDIT FAILED" in done.stdout


def test_script_exits_2_on_a_bad_catalogue(tmp_path: Path) -> None:
    fake_seed(tmp_path)
    (tmp_path / "seed_007.toml").write_text(FAKE.replace('scope = "staff"', 'scope = "x"'))
    done = run_script(tmp_path, PASSING)
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert "seed_007.toml:27: article #4 scope" in line
    assert done.stdout == ""


def test_script_prints_no_table_when_pytest_cannot_start(tmp_path: Path) -> None:
    fake_seed(tmp_path)
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = --no-such-option\n")
    (tmp_path / "test_seed_007_fake.py").write_text(PASSING)
    done = subprocess.run([sys.executable, str(Path(audit.__file__)), "--dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1
    assert "pytest did not run the tests (exit 4" in done.stderr
    assert "AUDIT" not in done.stdout and "not implemented" not in done.stdout


def test_skipped_catalogue_checks_are_noted_but_do_not_fail(tmp_path: Path) -> None:
    fake_seed(tmp_path)
    (tmp_path / "test_catalogues.py").write_text(
        "import pytest\n\n\ndef test_catalogue_matches_its_seed() -> None:\n"
        "    pytest.skip('no seeds')\n")
    done = run_script(tmp_path, PASSING)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "NOTE: 1 check of the catalogues against the seeds' text skipped" in done.stdout
    assert done.stdout.rstrip().endswith("AUDIT PASSED")
