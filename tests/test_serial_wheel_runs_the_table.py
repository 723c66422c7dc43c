"""An automated wheel that runs its own cycle runs the table too (issue 16, items 9-12):
bets follow the wheel's states, a held spin parks with its bets while the next games go
on, a line split across reads is no gap, and the wheel families' flags and counters.

Traces come from tests/wheel_lines.py (the protocol written out from the issues' text);
every expected value follows from the scenario written here (which numbers the wheel
gave, which bets were placed when) and the issue's text, never from the controller.
"""

from __future__ import annotations

import io
import re
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, Replay, ReplayFn, run_replay, write_trace
from wheel_lines import SERIAL_CONFIG, WheelScript, status_text

from controller.cli.compose import load_config
from controller.core.errors import ConfigError

SERIAL_TOML = (REPO / "config" / "roulette-serial-sim.toml").read_text()


def run(replay: ReplayFn, ws: WheelScript | list[dict[str, Any]]) -> Replay:
    res = replay(ws.events() if isinstance(ws, WheelScript) else ws, config=SERIAL_CONFIG)
    assert res.rc == 0, res.stderr
    return res


def game(ws: WheelScript, result: str | None, *bets: tuple[Any, ...], bare: str | None = None,
         flags4: int = 0) -> WheelScript:
    """One whole game of the wheel: bets open (a bet placed after its first line), ball
    in the rim, no more bets, the bare number (``bare``, default the result), the winning
    number, then the next game's start (the counter one more)."""
    ws.status(2, 1)
    for kind, box, amount, extra in bets:
        ws.bet(kind, box, amount, **extra)
    ws.status(2, 1).status(3, 4).status(4, 4, flags=flags4)
    if result is not None:
        ws.line((bare or result).rjust(2))
        ws.status(5, 3, number=result)
    return ws.status(1, 1, game=ws.next_game())


def straight(box: int, number: str, amount: int = 10) -> tuple[Any, ...]:
    return ("straight", box, amount, {"numbers": [number]})


def settled(res: Replay) -> list[tuple[int, int, str, int]]:
    """(game, box, outcome, payout) of each settlement, in the journal's order."""
    return [(s["game"], s["box"], s["outcome"], s["payout"]) for s in res.of("settlement")]


# -- item 9: the wheel's states 2 and 4 open and close bets -------------------------
def test_bets_follow_the_wheel_with_no_person_at_the_table(replay: ReplayFn) -> None:
    # Nobody types anything: three games, a straight bet in each on its own number.
    ws = WheelScript(open_at=None)
    game(ws, "17", straight(1, "17"))
    game(ws, "5", straight(2, "5"))
    game(ws, "32", straight(3, "0"))
    res = run(replay, ws)
    assert [(o["spin"], o["number"]) for o in res.outcomes] == [(1, "17"), (2, "5"), (3, "32")]
    # 35 to 1 on a straight (Art. 13): +350 on 10; the third bet loses its 10.
    assert settled(res) == [(1, 1, "win", 350), (2, 2, "win", 350), (3, 3, "lose", -10)]
    assert not res.alarms("bet_refused")
    opened = [r for r in res.of("state") if r["to"] == "bets_open"]
    assert opened[0]["trigger"] == "wheel_open_bets"


def test_the_wheels_state_4_closes_bets(replay: ReplayFn) -> None:
    ws = WheelScript(open_at=None).status(2, 2).status(3, 2).status(4, 1)
    ws.bet("red", 1, 10)  # after "no va más"
    ws.status(4, 2).line("17").status(5, 2, number="17")
    res = run(replay, ws)
    (refused,) = res.alarms("bet_refused")
    assert refused["bet"]["kind"] == "red" and not res.of("settlement")
    assert res.outcome()["number"] == "17"


def test_the_wheel_reopens_the_table_after_a_dealers_void(replay: ReplayFn) -> None:
    # A foreign object (Art. 12 e) voided by the dealer: the ball still runs, the table
    # closes; the wheel's next game opens bets again with no person.
    ws = WheelScript().status(2, 2).bet("red", 1, 10).status(3, 2)
    ws.inp("void", reason="foreign_object").status(4, 2).line("3").status(5, 1, number="3")
    ws.status(1, 1, game=ws.next_game())
    game(ws, "9", ("red", 2, 10, {}))
    res = run(replay, ws)
    assert [(o["spin"], o.get("number") or o["reason"]) for o in res.outcomes] == [
        (1, "foreign_object"), (2, "9")]
    assert settled(res) == [(1, 1, "push", 0), (2, 2, "win", 10)]  # 9 is red


def test_a_table_the_dealer_closed_stays_closed(replay: ReplayFn) -> None:
    ws = WheelScript().inp("close_table")
    game(ws, "17", straight(1, "17"))
    res = run(replay, ws)
    assert not res.of("spin_start") and res.alarms("bet_refused")
    assert res.of("state")[-1]["to"] == "closed"


def test_bets_that_do_not_follow_the_wheel_wait_for_the_dealer(replay: ReplayFn) -> None:
    ws = WheelScript(open_at=None, bets_follow_wheel=False)
    game(ws, "17", straight(1, "17"))
    res = run(replay, ws)
    assert not res.of("spin_start") and res.alarms("bet_refused")


# -- item 10: a held spin parks; the next games go on with their own bets ------------
def parked_trace(decide: dict[str, Any] | None = None) -> WheelScript:
    """Game 1 held (the bare number 31 disagrees with state 5's 17: CONTRACT §5), a
    straight on 17 by box 1 frozen with it; game 2 gives 5 (box 2 on 5), game 3 gives 8
    (box 3 on 8); then the inspector's decision on spin 1, if any."""
    ws = WheelScript(open_at=None)
    game(ws, "17", straight(1, "17"), bare="31")
    game(ws, "5", straight(2, "5"))
    game(ws, "8", straight(3, "8"))
    if decide is not None:
        ws.inp(decide.pop("action"), **decide)
    return ws


def test_a_held_spin_parks_and_the_next_games_go_on(replay: ReplayFn) -> None:
    res = run(replay, parked_trace({"action": "confirm_result", "number": "17",
                                    "by": "inspector"}))
    (held,) = res.of("spin_held")
    assert (held["spin"], held["candidates"], held["parked"]) == (1, ["31", "17"], True)
    assert [(o["spin"], o["number"]) for o in res.outcomes] == [(2, "5"), (3, "8"), (1, "17")]
    assert res.outcomes[-1]["decided_by"] == "inspector"
    # Each game settles its own bets; spin 1's, frozen, when it is decided: last.
    assert settled(res) == [(2, 2, "win", 350), (3, 3, "win", 350), (1, 1, "win", 350)]


def test_a_parked_spin_voided_returns_its_frozen_bets(replay: ReplayFn) -> None:
    res = run(replay, parked_trace({"action": "void", "reason": "wheel_malfunction",
                                    "spin": 1}))
    assert [(o["spin"], o.get("number") or o["reason"]) for o in res.outcomes] == [
        (2, "5"), (3, "8"), (1, "wheel_malfunction")]
    assert settled(res)[-1] == (1, 1, "push", 0)


def test_two_parked_spins_need_the_spin_named(replay: ReplayFn) -> None:
    ws = WheelScript(open_at=None)
    game(ws, "17", straight(1, "17"), bare="31")
    game(ws, "5", straight(2, "5"), bare="6")
    ws.inp("confirm_result", number="17")
    ws.inp("confirm_result", number="5", spin=2)
    ws.inp("confirm_result", number="17", spin=1)
    ws.inp("confirm_result", number="17", spin=1)  # decided already
    res = run(replay, ws)
    refused = [a["message"] for a in res.alarms("input_refused")]
    assert len(refused) == 2 and "spin=N" in refused[0] and "not held" in refused[1]
    assert [(o["spin"], o["number"]) for o in res.outcomes] == [(2, "5"), (1, "17")]
    assert settled(res) == [(2, 2, "win", 350), (1, 1, "win", 350)]


def test_a_held_spin_that_stops_the_table_takes_no_later_ball(replay: ReplayFn) -> None:
    ws = WheelScript(open_at=None, held_spin="stops_table")
    game(ws, "17", straight(1, "17"), bare="31")
    game(ws, "5", straight(2, "5"))
    res = run(replay, ws)
    assert len(res.of("spin_start")) == 1 and not res.outcomes
    assert res.alarms("wheel_not_a_spin") and res.of("state")[-1]["to"] == "held"


def test_tablectl_status_lists_the_parked_spins(replay: ReplayFn) -> None:
    from controller.cli import tablectl

    res = run(replay, parked_trace())
    out = io.StringIO()
    with redirect_stdout(out):
        assert tablectl.main(["--journal", str(res.journal), "status"]) == 0
    text = re.sub(r"\n {15}(?=\S)", " ", out.getvalue())  # a line cut at 80 columns, joined
    lines = [ln for ln in text.splitlines() if ln.startswith("parked")]
    assert len(lines) == 1 and "spin 1 " in lines[0] and "points to 31 or 17" in lines[0]
    assert "spin=1" in lines[0] and "31" in lines[0]


def split_at_games(ws: WheelScript) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The trace cut after the first game's end (spin 1 parked, the table between
    games), as two traces."""
    events = ws.events()
    cut = 1 + next(i for i, e in enumerate(events) if e.get("text", "").startswith("*X;1;"))
    return events[:cut], [events[0], *events[cut:]]


def play_cut(tmp_path: Path, parts: tuple[list[dict[str, Any]], ...], checkpoints: bool
             ) -> list[dict[str, Any]]:
    """Each part of a trace played by a fresh table on one journal (a restart between
    them; ``checkpoints``: one after every input that allows it); the journal's records."""
    from controller.cli.compose import read_trace
    from controller.core.clock import VirtualClock
    from controller.core.loop import EventLoop
    from controller.core.table import Table
    from controller.store.journal import Journal

    config = load_config(SERIAL_CONFIG)
    db = tmp_path / "cut.sqlite"
    for n, part in enumerate(parts):
        trace = read_trace(str(write_trace(tmp_path / f"{n}.jsonl", part)))
        with Journal(db, durable=False) as journal:
            clock = VirtualClock(trace.events[0].t)
            loop = EventLoop(clock, lambda e: None)
            table = Table(config, journal, loop.call_at, clock.now, None)
            if checkpoints:
                table.checkpoint_every = 1
            loop.handler = table.handle
            table.recover()
            loop.run_events(trace.events)
    with Journal(db, readonly=True) as journal:
        return list(journal.records())


@pytest.mark.parametrize("checkpoints", [False, True])
def test_a_restart_keeps_the_parked_spin_and_its_bets(tmp_path: Path,
                                                      checkpoints: bool) -> None:
    ws = parked_trace({"action": "confirm_result", "number": "17", "spin": 1})
    records = play_cut(tmp_path, split_at_games(ws), checkpoints)
    if checkpoints:
        assert any(r["type"] == "checkpoint" and r["state"].get("parked") for r in records)
    outcomes = [(r["spin"], r.get("number") or r.get("reason")) for r in records
                if r["type"] in ("spin_result", "spin_invalid")]
    assert outcomes == [(2, "5"), (3, "8"), (1, "17")]  # nothing voided by the restart
    pays = [(r["game"], r["box"], r["outcome"], r["payout"]) for r in records
            if r["type"] == "settlement"]
    assert pays == [(2, 2, "win", 350), (3, 3, "win", 350), (1, 1, "win", 350)]


@pytest.mark.parametrize("checkpoints", [False, True])
def test_a_restart_in_the_next_game_voids_it_and_keeps_the_parked_spin(
        tmp_path: Path, checkpoints: bool) -> None:
    # The controller stops while game 2's ball runs (after its launch): game 2 is voided
    # (interrupted, its bet returned); spin 1 stays parked; game 3 is spin 3.
    ws = parked_trace({"action": "confirm_result", "number": "17"})
    events = ws.events()
    launches = [i for i, e in enumerate(events) if e.get("text", "").startswith("*X;3;")]
    cut = launches[5]  # the second game's second state-3 line
    records = play_cut(tmp_path, (events[:cut], [events[0], *events[cut:]]), checkpoints)
    outcomes = [(r["spin"], r.get("number") or r.get("reason")) for r in records
                if r["type"] in ("spin_result", "spin_invalid")]
    assert outcomes == [(2, "interrupted"), (3, "8"), (1, "17")]
    pays = [(r["game"], r["box"], r["outcome"], r["payout"]) for r in records
            if r["type"] == "settlement"]
    assert pays == [(2, 2, "push", 0), (3, 3, "win", 350), (1, 1, "win", 350)]


def test_a_restart_after_the_decision_does_not_settle_again(tmp_path: Path) -> None:
    ws = parked_trace({"action": "confirm_result", "number": "17"})
    db = tmp_path / "j.sqlite"
    first = run_replay(write_trace(tmp_path / "a.jsonl", ws.events()), db, "--config",
                       SERIAL_CONFIG)
    assert len(first.of("settlement")) == 3
    later = WheelScript(open_at=None, game=ws.game)
    later.t = ws.t + 5.0
    game(later, "20", straight(4, "20"))
    second = run_replay(write_trace(tmp_path / "b.jsonl", later.events()), db, "--config",
                        SERIAL_CONFIG)
    assert [(o["spin"], o["number"]) for o in second.outcomes] == [(4, "20")]
    assert settled(second) == [(4, 4, "win", 350)]


# -- item 11: a gap is measured from the arrival of a line's first byte --------------
def test_a_state_5_line_split_across_two_reads_is_no_gap(replay: ReplayFn) -> None:
    # The last line of state 4 at t; state 5's first bytes 0.5 s later, its end 1.6 s
    # after that last line (over wheel_burst_gap_s 1.5): nothing was lost.
    ws = WheelScript().status(2, 2).status(3, 3).status(4, 3).line("17")
    five = status_text(5, 94, "17", 0, 160, 0) + "\r"
    last = ws.t - ws.period
    ws.raw(five[:7], t=last + 0.5).raw(five[7:], t=last + 1.6)
    ws.t = last + 2.1
    ws.status(5, 1, number="17")
    out = run(replay, ws).outcome()
    assert (out["type"], out["number"]) == ("spin_result", "17")


def test_a_line_whose_first_byte_comes_after_a_gap_is_still_a_gap(replay: ReplayFn) -> None:
    ws = WheelScript().status(2, 2).status(3, 3).status(4, 3).line("17")
    five = status_text(5, 94, "17", 0, 160, 0) + "\r"
    last = ws.t - ws.period
    ws.raw(five[:7], t=last + 1.7).raw(five[7:], t=last + 1.8)
    res = run(replay, ws)
    (held,) = res.of("spin_held")
    assert "wheel_link" in held["details"] and held["candidate"] == "17"


def test_a_bet_between_a_split_state_4_lines_first_byte_and_its_end_holds_the_spin(
        replay: ReplayFn) -> None:
    # The wheel sent "no va más" (state 4) at 2.45 s: its first bytes came then, the rest
    # 0.6 s later; a bet at 2.75 s came after the wheel's call. It is never paid as on time.
    ws = WheelScript().status(2, 2).status(3, 3)
    four = status_text(4, 94, "33", 0, 160, 0) + "\r"
    sent = ws.t - ws.period + 0.5
    ws.raw(four[:9], t=sent)
    ws.tb.bet(round(sent + 0.3, 6), "straight", 1, 10, numbers=["17"])
    ws.raw(four[9:], t=sent + 0.6)
    ws.t = sent + 1.1
    ws.status(4, 2).line("17").status(5, 2, number="17")
    res = run(replay, ws)
    (held,) = res.of("spin_held")
    assert "wheel_late_bet" in held["details"] and held["candidate"] == "17"
    assert not res.of("settlement")


# -- item 12: wheel families ---------------------------------------------------------
def test_a_slingshot_counter_that_wraps_is_the_next_game(replay: ReplayFn) -> None:
    ws = WheelScript(game=255)
    for number in ("4", "15", "19"):  # games 255, 256, then 001
        game(ws, number)
    res = run(replay, ws)
    assert [o["number"] for o in res.outcomes] == ["4", "15", "19"]
    assert [o["wheel_game"] for o in res.outcomes] == [255, 256, 1]
    assert not res.alarms("wheel_counter_jump") and not res.alarms("wheel_bad_line")


def test_a_counter_that_jumps_between_games_is_an_alarm(replay: ReplayFn) -> None:
    ws = WheelScript(game=100)
    game(ws, "4")
    ws.game = 104  # three games the table never heard of
    game(ws, "15")
    res = run(replay, ws)
    (jump,) = res.alarms("wheel_counter_jump")
    assert "from 100" in jump["message"] and "to 104" in jump["message"]
    assert [o["number"] for o in res.outcomes] == ["4", "15"]  # each its own lines


def test_a_mercury_counter_runs_0_to_255_and_resets_when_the_table_closes(
        replay: ReplayFn) -> None:
    ws = WheelScript(game=254, first_game=0, last_game=255, wheel_model="mercury360")
    for number in ("4", "15", "19"):  # games 254, 255, then 000
        game(ws, number)
    ws.game = 120
    game(ws, "7")
    ws.status(6, 3, game=0, speed=0)  # the table closed: the counter back to 000
    game(ws, "8")
    res = run(replay, ws)
    assert [o["wheel_game"] for o in res.outcomes] == [254, 255, 0, 120, 0]
    assert [a["message"] for a in res.alarms("wheel_counter_jump")] and all(
        "120" in a["message"] for a in res.alarms("wheel_counter_jump"))
    assert len(res.alarms("wheel_counter_jump")) == 1  # 000 -> 120 only
    assert not res.alarms("wheel_bad_line")


@pytest.mark.parametrize(("model", "game_no"), [("slingshot2", 0), ("slingshot2", 257),
                                                ("mercury360", 256)])
def test_a_counter_outside_the_models_range_is_a_bad_line(replay: ReplayFn, model: str,
                                                          game_no: int) -> None:
    ws = WheelScript(game=game_no, wheel_model=model)
    res = run(replay, ws.status(2, 3))
    bad = res.alarms("wheel_bad_line")
    assert len(bad) == 3 and all("GGG" in a["message"] for a in bad)


@pytest.mark.parametrize(("model", "words"), [
    ("slingshot2", "ball removed"), ("mercury360", "rotor speed outside its limits")])
def test_flag_1_means_what_the_wheels_family_says(replay: ReplayFn, model: str,
                                                  words: str) -> None:
    ws = WheelScript(wheel_model=model)
    game(ws, "17", flags4=1)
    ws.status(2, 2, flags=1)  # and raised again outside play
    res = run(replay, ws)
    (held,) = res.of("spin_held")
    assert words in held["details"]["wheel_flag_1"] and not res.of("settlement")
    assert any(words in a["message"] for a in res.alarms("wheel_warning"))
    other = "ball removed" if model == "mercury360" else "rotor speed"
    assert other not in str(held["details"])


def test_a_wheel_port_going_down_raises_an_alarm_and_holds_the_ball(tmp_path: Path) -> None:
    from controller.core.clock import VirtualClock
    from controller.core.events import PortStatus, SerialData
    from controller.core.loop import EventLoop
    from controller.core.table import Table
    from controller.store.journal import Journal

    config = load_config(SERIAL_CONFIG)

    def line(t: float, state: int, number: str | None = None) -> SerialData:
        return SerialData(t, "wheel", (status_text(state, 50, number, 0, 160, 0) + "\r")
                          .encode())

    with Journal(tmp_path / "j.sqlite", durable=False) as journal:
        clock = VirtualClock(0.0)
        loop = EventLoop(clock, lambda e: None)
        table = Table(config, journal, loop.call_at, clock.now, None)
        loop.handler = table.handle
        table.recover()
        loop.run_events([line(0.5, 2), line(1.0, 2), line(1.5, 3), line(2.0, 3),
                         PortStatus(2.2, "wheel", False, "unplugged"),
                         PortStatus(3.0, "wheel", True, ""), line(3.1, 4), line(3.6, 4),
                         line(4.1, 4), line(4.6, 5, "17"), line(5.1, 5, "17")])
        records = list(journal.records())
    alarms = {r["code"]: r["message"] for r in records if r["type"] == "alarm"}
    assert "unplugged" in alarms["wheel_port_down"] and "wheel_port_up" in alarms
    (held,) = [r for r in records if r["type"] == "spin_held"]
    assert "port went down" in held["details"]["wheel_link"] and held["candidate"] == "17"


# -- the settings: one clear line naming file, line and key --------------------------
def config_error(tmp_path: Path, text: str) -> ConfigError:
    path = tmp_path / "c.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as exc:
        load_config(str(path))
    return exc.value


@pytest.mark.parametrize(("line", "key"), [
    ('wheel_model = "mercury"', "roulette.wheel_model"),
    ('bets_follow_wheel = "yes"', "roulette.bets_follow_wheel"),
    ('held_spin = "waits"', "roulette.held_spin"),
])
def test_a_bad_serial_wheel_setting_is_one_line(tmp_path: Path, line: str, key: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    from controller.cli import main as cli

    text = SERIAL_TOML.replace("boxes = 8", f"boxes = 8\n{line}")
    exc = config_error(tmp_path, text)
    number = text.splitlines().index(line) + 1
    assert exc.field == key and exc.line == number
    trace = write_trace(tmp_path / "t.jsonl", WheelScript().status(2, 1).events())
    assert cli.main(["replay", str(trace), "--config", str(tmp_path / "c.toml")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"c.toml:{number}: field '{key}'" in err


def test_a_gpio_wheel_takes_no_bets_follow_wheel_but_may_park(tmp_path: Path) -> None:
    gpio = (REPO / "config" / "roulette-sim.toml").read_text()
    exc = config_error(tmp_path, gpio.replace("boxes = 8", "boxes = 8\nbets_follow_wheel "
                                              "= true", 1))
    assert exc.field == "roulette.bets_follow_wheel" and "serial" in str(exc)
    path = tmp_path / "p.toml"
    path.write_text(gpio.replace("boxes = 8", 'boxes = 8\nheld_spin = "parks"', 1))
    assert load_config(str(path)).rules.parks
    assert not load_config(str(REPO / "config" / "roulette-sim.toml")).rules.parks
    serial = load_config(SERIAL_CONFIG).rules
    assert serial.parks and serial.follows_wheel and serial.wheel_model == "slingshot2"


def test_a_gpio_wheels_held_spin_may_park_too(replay: ReplayFn) -> None:
    # The GPIO wheel's held spin of tests/test_sensor_faults.py (the rotor sensors go
    # quiet after its one pocket reading), with held_spin = "parks": the table closes for
    # the dealer to open the next game, and the decision later settles the frozen bet.
    from test_sensor_faults import held_trace

    tb, spin = held_trace()
    tb.meta["held_spin"] = "parks"
    tb.inp(spin.reads[0] + 30.0, "open_bets")
    tb.bet(spin.reads[0] + 31.0, "red", 1, 10)
    tb.inp(spin.reads[0] + 40.0, "confirm_result", number=spin.number, by="inspector")
    res = replay(tb)
    (held,) = res.of("spin_held")
    assert held["parked"] and [r["to"] for r in res.of("state")][-2:] == ["closed",
                                                                         "bets_open"]
    (out,) = res.of("spin_result")
    assert (out["spin"], out["number"], out["decided_by"]) == (1, spin.number, "inspector")
    # Only the frozen straight is settled (35 to 1); the red bet waits for spin 2.
    assert settled(res) == [(1, 2, "win", 350)]
    assert [b["game"] for b in res.of("bet")] == [1, 2]


def test_a_parked_spins_evidence_is_its_own_game_then_the_decision(tmp_path: Path) -> None:
    # Art. 14: a disputed game recalled in full. Spin 1 was decided after games 2 and 3:
    # its exported trace holds its own lines and bets, then the decision, and a fresh
    # table gives the same verdict and settlement from it.
    import json

    from controller.cli.tablectl import main as tablectl

    ws = parked_trace({"action": "confirm_result", "number": "17", "spin": 1,
                       "by": "inspector"})
    res = run_replay(write_trace(tmp_path / "t.jsonl", ws.events()), tmp_path / "j.sqlite",
                     "--config", SERIAL_CONFIG)
    out = tmp_path / "spin-1.jsonl"
    with redirect_stdout(io.StringIO()):
        assert tablectl(["--journal", str(res.journal), "export", "--evidence", "1",
                         "--out", str(out)]) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [e["numbers"] for e in lines if "bet" in e] == [["17"]]  # game 1's bet only
    assert lines[-1] == {"t": lines[-1]["t"], "input": "confirm_result", "number": "17",
                         "by": "inspector"}
    again = run_replay(out, tmp_path / "again.sqlite", "--config", SERIAL_CONFIG)
    assert [(o["spin"], o["number"], o["decided_by"]) for o in again.outcomes] == [
        (1, "17", "inspector")]
    assert settled(again) == [(1, 1, "win", 350)]
