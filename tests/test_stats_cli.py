"""``tablectl stats`` (issue 21) on journals left by replays: every window option, --json,
--plot, an empty journal and another game's journal; ``tablectl input dealer`` journals a
dealer record that status, recall and stats show."""

from __future__ import annotations

import io
import json
import sqlite3
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from conftest import run_replay

from controller.cli import main as cli
from controller.cli.tablectl import main as tablectl_main
from controller.store.journal import Journal


def _tablectl(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = tablectl_main(list(args))
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """40 simulated spins, Ana dealing the first half and Bea the rest."""
    folder = tmp_path_factory.mktemp("stats")
    raw = folder / "sim.jsonl"
    with redirect_stdout(io.StringIO()):
        assert cli.main(["simulate", "--spins", "40", "--seed", "5", "--out", str(raw)]) == 0
    lines = [json.loads(line) for line in raw.read_text().splitlines()]
    middle = lines[len(lines) // 2]["t"]
    out = [lines[0], {"t": 0, "input": "dealer", "name": "Ana"}]
    changed = False
    for obj in lines[1:]:
        if not changed and obj["t"] >= middle and "bet" in obj:
            out.append({"t": obj["t"], "input": "dealer", "name": "Bea"})
            changed = True
        out.append(obj)
    trace = folder / "trace.jsonl"
    trace.write_text("".join(json.dumps(o) + "\n" for o in out))
    path = folder / "journal.sqlite"
    assert run_replay(trace, path).rc == 0
    return path


def _results(path: Path, since: float = 0.0, until: float = 1e18) -> list[str]:
    """The winning numbers journaled in [since, until), read with SQL alone."""
    db = sqlite3.connect(path)
    try:
        rows = db.execute("SELECT body FROM records WHERE type = 'spin_result' AND t >= ? "
                          "AND t < ? ORDER BY seq", (since, until)).fetchall()
    finally:
        db.close()
    return [json.loads(body)["number"] for (body,) in rows]


def _figures(path: Path, *options: str) -> dict:
    rc, out, _ = _tablectl("--journal", str(path), "stats", "--json", *options)
    assert rc == 0
    return json.loads(out)


def test_the_whole_journal_by_default(journal: Path) -> None:
    numbers = _results(journal)
    fig = _figures(journal)
    assert fig["spins"] == len(numbers) > 30
    assert sum(fig["counts"].values()) == len(numbers)
    assert fig["counts"]["0"] == numbers.count("0")
    for key in ("spins", "wheel", "counts", "chi_square", "dof", "p_value", "sectors",
                "spins_to_detect"):
        assert key in fig
    assert fig["wheel"] == "single_zero" and fig["dof"] == 36
    assert {"pockets", "count", "expected", "p_value"} <= set(fig["sectors"][0])


def test_last_n_games(journal: Path) -> None:
    numbers = _results(journal)
    fig = _figures(journal, "--last", "10")
    assert fig["spins"] == 10
    for number in set(numbers[-10:]):
        assert fig["counts"][number] == numbers[-10:].count(number)


def test_since_and_until(journal: Path) -> None:
    ts = [r[0] for r in sqlite3.connect(journal).execute(
        "SELECT t FROM records WHERE type = 'spin_result' ORDER BY seq")]
    since, until = ts[5], ts[20]
    assert _figures(journal, "--since", str(since))["spins"] == len(_results(journal, since))
    assert _figures(journal, "--until", str(until))["spins"] == len(
        _results(journal, until=until)) == 20
    both = _figures(journal, "--since", str(since), "--until", str(until))
    assert both["spins"] == len(_results(journal, since, until)) == 15
    assert _figures(journal, "--since", str(since), "--last", "3")["spins"] == 3


def test_a_window_with_no_game_is_one_line(journal: Path) -> None:
    rc, out, _ = _tablectl("--journal", str(journal), "stats", "--since", "1e12")
    assert rc == 0 and out.count("\n") == 1 and "no spin result" in out


def test_a_bad_last_is_refused_in_one_line(journal: Path) -> None:
    rc, _, err = _tablectl("--journal", str(journal), "stats", "--last", "0")
    assert rc == 2 and err.count("\n") == 1 and "--last" in err


def test_plain_output_is_one_screen_of_80_columns(journal: Path) -> None:
    rc, out, _ = _tablectl("--journal", str(journal), "stats")
    lines = out.splitlines()
    assert rc == 0 and len(lines) <= 30
    assert max(map(len, lines)) <= 80
    assert lines[0].startswith("Roulette, single zero wheel: ")
    # 40 spins on 37 pockets: too few for the pockets' test; the counts are still there.
    assert any("no test made" in line for line in lines)
    assert any(line.startswith("dealer  Ana") for line in lines)


def test_dealers_are_who_the_table_said(journal: Path) -> None:
    fig = _figures(journal)
    assert set(fig["dealers"]) == {"Ana", "Bea"}
    assert sum(d["spins"] for d in fig["dealers"].values()) == fig["spins"]
    # A window after the change still knows who dealt: the dealer record before it.
    assert set(_figures(journal, "--last", "5")["dealers"]) == {"Bea"}


def test_status_and_recall_show_the_dealer(journal: Path) -> None:
    rc, out, _ = _tablectl("--journal", str(journal), "status")
    assert rc == 0 and any(line.startswith("dealer       Bea") for line in out.splitlines())
    rc, out, _ = _tablectl("--journal", str(journal), "recall", "--last", "40")
    assert rc == 0 and "dealer  name Ana" in out and "dealer  name Bea" in out


def test_plot_writes_a_png(journal: Path, tmp_path: Path) -> None:
    from matplotlib import image

    png = tmp_path / "stats.png"
    rc, _, _ = _tablectl("--journal", str(journal), "stats", "--plot", str(png))
    assert rc == 0 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    height, width = image.imread(png).shape[:2]
    assert width > 500 and height > 500


def test_an_empty_journal_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "empty.sqlite"
    Journal(path).close()
    rc, out, err = _tablectl("--journal", str(path), "stats")
    assert rc == 0 and out == "no spin result in the journal: no statistics\n" and not err


def test_another_games_journal_is_one_line(tmp_path: Path) -> None:
    path, trace = tmp_path / "baccarat.sqlite", tmp_path / "baccarat.jsonl"
    with redirect_stdout(io.StringIO()):
        assert cli.main(["simulate", "--table", "mini_baccarat", "--coups", "3",
                         "--out", str(trace)]) == 0
    assert run_replay(trace, path).rc == 0
    rc, out, err = _tablectl("--journal", str(path), "stats")
    assert rc == 1 and not out and err.count("\n") == 1
    assert "Mini-Bacar" in err and "not a Roulette table's" in err


def test_an_empty_dealer_name_is_refused(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    trace.write_text('{"t": 0, "meta": {"table": "roulette"}}\n'
                     '{"t": 1, "input": "dealer", "name": " "}\n')
    res = run_replay(trace, tmp_path / "j.sqlite")
    assert not res.of("dealer")
    assert any("dealer's name" in a["message"] for a in res.alarms())


def test_a_page_folds_each_new_result_into_the_same_figures(journal: Path) -> None:
    from controller.cli.compose import load_config
    from controller.core import stats
    from controller.core.config import DEFAULT_CONFIG

    config = load_config(DEFAULT_CONFIG)
    ts = [r[0] for r in sqlite3.connect(journal).execute(
        "SELECT t FROM records WHERE type = 'spin_result' ORDER BY seq")]
    with Journal(journal, readonly=True) as j:
        _, whole = stats.fold_window(j, config, stats.Window())
        _, page = stats.fold_window(j, config, stats.Window(until=ts[19] + 1e-6))
        assert page.figures()["spins"] == 20
        after, _ = stats.bounds(j, ("spin_result",), stats.Window(since=ts[19] + 1e-6))
        for record in stats.records(j, page.reads, after, None, (), page.fields):
            page.fold(record)  # one at a time, as the page sees them journaled
    assert page.figures() == whole.figures()


def test_the_daemons_status_line_names_the_dealer() -> None:
    from controller.cli.daemon.health import StatusLine
    from controller.core import registry

    line = StatusLine("roulette-1", registry.spec("roulette"), lambda: "bets_open", None,
                      dealer="Ana")
    assert "bets_open; dealer Ana; no spin yet" in str(line)
    line.observe({"type": "dealer", "seq": 4, "name": "Bea"})
    assert "; dealer Bea;" in str(line)


def test_a_card_table_restarted_mid_coup_plays_its_dealer_inputs_again_unchanged(
        tmp_path: Path) -> None:
    from test_card_table_restart import coup_events, play

    from controller.core.events import DealerInput

    events = list(coup_events())
    at = events[9].t  # after the Art. 5 procedure and the burn, before the bets
    events[9:9] = [DealerInput(at, "dealer", {"name": "Ana"}),
                   DealerInput(at, "dealer", {"name": ""}),  # refused: an alarm
                   DealerInput(at, "dealer", {})]  # refused: no name
    half = len(events) - 4
    path = tmp_path / "journal.sqlite"
    play(path, events[:half])
    play(path, events[half:], start=events[half - 1].t)
    with Journal(path, readonly=True) as j:
        recs = list(j.records())
    (recovery,) = [r for r in recs if r["type"] == "recovery"]
    assert recovery["mismatch"] is None
    assert [r["name"] for r in recs if r["type"] == "dealer"] == ["Ana"]
    codes = [r["code"] for r in recs if r["type"] == "alarm"]
    assert codes.count("bad_dealer") == 1 and codes.count("missing_argument") == 1
