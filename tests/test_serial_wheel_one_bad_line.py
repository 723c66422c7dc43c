"""One line of an automated wheel's play flipped by one bit, or garbled, never gives a
wrong verdict (CONTRACT §5; issue 16; the held-out findings 9 and 10): the status-line
protocol has no checksum and the port no flow control, so a number is decided only when
two lines give it, and a finding only when the next line shows it too; else the spin is
held (parked, the serial wheel's `held_spin`) with the numbers the lines gave.

Every trace is written out here, line by line. Its truth, worked out by hand: the wheel
shows game 094 with 33 as the previous number (``NN`` in states 1-4), launches, calls
"no va más" and lands the ball in 5 (four state-5 lines with ``NN`` 5, as the SlingShot 2's
guide keeps state 5 for two rotor revolutions), then starts game 095. Box 1's straight of
10 on 5 wins 35 to 1 (Art. 13): +350. One line is then changed by one bit (or garbled);
the wheel's ball still landed in 5, so the only right verdicts are +350 or a hold.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from conftest import Replay, ReplayFn
from wheel_lines import SERIAL_CONFIG, WheelScript

OPEN = "*X;2;094;33;0;160;0"
RIM = "*X;3;094;33;0;160;0"
NMB = "*X;4;094;33;0;100;0"  # 10 rpm: 100 with its first bit cleared is 000, a stop
FIVE = "*X;5;094; 5;0;100;0"
NEXT = "*X;1;095; 5;0;100;0"


def lines(bare: bool = True) -> list[str]:
    """The clean game: bets open, ball in the rim, no more bets, (the bare number,) the
    winning number 5, the next game."""
    return [OPEN] * 2 + [RIM] * 4 + [NMB] * 4 + ([" 5"] if bare else []) + [FIVE] * 4 + [
        NEXT] * 2


def flip(texts: list[str], index: int, field: int, bit: int) -> list[str]:
    """``texts`` with one bit (``bit``, 0-7) of the character at ``field`` of line
    ``index`` flipped (the character's position in the line)."""
    out = list(texts)
    line = out[index]
    out[index] = line[:field] + chr(ord(line[field]) ^ (1 << bit)) + line[field + 1:]
    return out


def play(replay: ReplayFn, texts: list[str]) -> Replay:
    ws = WheelScript().bet("straight", 1, 10, numbers=["5"])
    for text in texts:
        ws.line(text)
    res = replay(ws.events(), config=SERIAL_CONFIG)
    assert res.rc == 0, res.stderr
    return res


def verdict(res: Replay) -> tuple[str, Any]:
    """("result", number and payout) or ("held", candidates); never anything else."""
    held = res.of("spin_held")
    if held:
        assert not res.outcomes and not res.of("spin_invalid") and not res.of("settlement")
        assert held[0]["parked"] is True
        return "held", held[0].get("candidates")
    assert not res.of("spin_invalid"), res.of("spin_invalid")
    [outcome] = res.outcomes
    return "result", (outcome["number"], [s["payout"] for s in res.of("settlement")])


def test_the_clean_game_pays_the_straight_on_5(replay: ReplayFn) -> None:
    assert verdict(play(replay, lines())) == ("result", ("5", [350]))
    assert verdict(play(replay, lines(bare=False))) == ("result", ("5", [350]))


# A status line's characters: *X;S;GGG;NN;W;SSS;D -> S at 3, GGG at 5-7, NN at 9-10,
# W at 12, SSS at 14-16, D at 18.
NMB_LINE = 7  # the second state-4 line


@pytest.mark.parametrize("bare", [True, False], ids=["bare_line", "bare_line_lost"])
def test_a_state_4_line_read_as_state_5_is_no_result(replay: ReplayFn, bare: bool) -> None:
    # '4' (0x34) -> '5' (0x35): *X;5;094;33;... says 5 with the previous number 33; then
    # state 4 again. Finding 9: spin = 33, the straight on 5 lost its 10.
    texts = flip(lines(bare), NMB_LINE, 3, 0)
    assert texts[NMB_LINE] == "*X;5;094;33;0;100;0"
    kind, candidates = verdict(play(replay, texts))
    assert kind == "held" and set(candidates) == {"33", "5"}


@pytest.mark.parametrize(("field", "bit", "text"), [
    (12, 1, "*X;4;094;33;2;100;0"),  # W: flag 2, ball in the rotor's direction (Art. 12 b)
    (12, 2, "*X;4;094;33;4;100;0"),  # W: flag 4, a fault (Art. 12 f)
    (14, 0, "*X;4;094;33;0;000;0"),  # SSS: 000, the rotor at rest (Art. 12 g)
    (15, 0, "*X;4;094;33;0;110;0"),  # SSS: 11 rpm, still a turning rotor
    (18, 0, "*X;4;094;33;0;100;1"),  # D: counterclockwise for one line (Art. 12 f)
    (5, 0, "*X;4;194;33;0;100;0"),  # GGG: another game counter
    (10, 1, "*X;4;094;31;0;100;0"),  # NN: the previous number, not this ball's
], ids=["W_flag_2", "W_flag_4", "SSS_stopped", "SSS_speed", "D", "GGG", "NN"])
def test_one_bit_flipped_in_a_field_of_a_state_4_line_voids_nothing(
        replay: ReplayFn, field: int, bit: int, text: str) -> None:
    texts = flip(lines(), NMB_LINE, field, bit)
    assert texts[NMB_LINE] == text
    kind, what = verdict(play(replay, texts))
    # One line said it and the next did not: a hold (pointing to 5, or to nothing when
    # the spin was cut before its number), or the result 5 when the field says nothing
    # of the ball; never voided, never another number.
    assert (kind, what) == ("result", ("5", [350])) or (kind == "held" and set(what) <= {"5"})


FIRST_FIVE = 10  # the first state-5 line when the bare line is lost


@pytest.mark.parametrize(("field", "bit", "text", "candidates"), [
    (10, 0, "*X;5;094; 4;0;100;0", {"4", "5"}),  # NN: 4 for one line (finding 10's kind)
    (9, 0, "*X;5;094;!5;0;100;0", None),  # NN: no number: a bad line, not used
    (12, 1, "*X;5;094; 5;2;100;0", {"5"}),  # W: flag 2 on one line only
    (3, 0, "*X;4;094; 5;0;100;0", None),  # S: state 4 once more, then state 5
], ids=["NN_digit", "NN_pad", "W", "S"])
def test_one_bit_flipped_in_the_first_state_5_line_with_no_bare_line(
        replay: ReplayFn, field: int, bit: int, text: str, candidates: set[str] | None,
) -> None:
    texts = flip(lines(bare=False), FIRST_FIVE, field, bit)
    assert texts[FIRST_FIVE] == text
    kind, what = verdict(play(replay, texts))
    if candidates is None:  # the line is unused or harmless: the next two state-5 lines
        assert (kind, what) == ("result", ("5", [350]))
    else:
        assert kind == "held" and set(what) == candidates


def test_a_flag_flipped_in_the_state_5_line_after_the_bare_line_voids_nothing(
        replay: ReplayFn) -> None:
    # The bare line and the first state-5 line give 5; that line's W reads 2 (0 -> 2),
    # the next state-5 line's 0 again.
    texts = lines()
    first = texts.index(FIVE)
    texts = flip(texts, first, 12, 1)
    assert texts[first] == "*X;5;094; 5;2;100;0"
    assert verdict(play(replay, texts)) == ("held", ["5"])


@pytest.mark.parametrize("then", ["next_game", "silence"])
@pytest.mark.parametrize(("flag", "reason"), [(2, "same_direction"), (4, "wheel_malfunction")])
def test_a_flag_on_the_only_state_5_line_is_a_finding_only_if_the_next_line_shows_it(
        replay: ReplayFn, flag: int, reason: str, then: str) -> None:
    # The wheel shows state 5 as one line (a habit of real wheels), after the bare line:
    # its W reads 2 or 4 (one bit from 0), then the next game's state 1 says 0, or nothing
    # comes. Neither confirms it: held, pointing to 5. The next game's line with the flag
    # still up confirms it (Art. 12 b or f): void, the straight returned.
    texts = [OPEN] * 2 + [RIM] * 4 + [NMB] * 4 + [" 5", f"*X;5;094; 5;{flag};100;0"]
    after = [NEXT] * 2 if then == "next_game" else []
    assert verdict(play(replay, texts + after)) == ("held", ["5"])
    latched = play(replay, texts + [NEXT.replace(";0;100;", f";{flag};100;")] * 2)
    assert [o["reasons"] for o in latched.of("spin_invalid")] == [[reason]]
    assert [s["payout"] for s in latched.of("settlement")] == [0]


def test_the_first_state_5_line_garbled_and_the_bare_line_lost_is_held(
        replay: ReplayFn) -> None:
    # Finding 10: NN ' 5' -> '32', a well-formed line; the three after it say 5.
    texts = lines(bare=False)
    texts[FIRST_FIVE] = "*X;5;094;32;0;100;0"
    assert verdict(play(replay, texts)) == ("held", ["32", "5"])


@pytest.mark.parametrize("garbled", [" 4", "35", " %"])
def test_a_garbled_bare_number_line_is_held(replay: ReplayFn, garbled: str) -> None:
    texts = lines()
    texts[texts.index(" 5")] = garbled
    kind, what = verdict(play(replay, texts))
    assert kind == "held" and "5" in what


def test_one_state_5_line_alone_before_the_next_game_is_held(replay: ReplayFn) -> None:
    # No bare line and a single state-5 line: nothing confirms its number.
    texts = [OPEN] * 2 + [RIM] * 4 + [NMB] * 4 + [FIVE] + [NEXT] * 2
    assert verdict(play(replay, texts)) == ("held", ["5"])


def test_no_single_bit_flip_in_the_lines_around_the_number_gives_a_wrong_verdict(
        replay: ReplayFn) -> None:
    # Every bit but the eighth (that makes no ASCII) of every character of the second
    # state-4 line and of the first state-5 line, the bare line lost: the ball landed in
    # 5, so each trace is +350 or held; never a void, never another number.
    wrong = []
    for index in (NMB_LINE, FIRST_FIVE):
        for field, bit in itertools.product(range(len(FIVE)), range(7)):
            texts = flip(lines(bare=False), index, field, bit)
            res = play(replay, texts)
            numbers = [o.get("number") for o in res.outcomes]
            if res.of("spin_invalid") or numbers not in ([], ["5"]):
                wrong.append((texts[index], numbers))
    assert wrong == []


# -- The extended fields (hardware.md §2b): the ball's revolutions RR (Art. 12 a), its B ----
# *X;S;GGG;NN;W;SSS;D;RR;B -> S at 3, D at 18, RR at 20-21, B at 23. The same game, its
# lines extended: the ball (B 1, counterclockwise; the rotor's D 0, clockwise) is counted 1,
# 1, 2, 2 in state 3 and leaves the track in state 4, so the state-4 and state-5 lines give
# its whole run, ``final``. With ``min_ball_revolutions`` 3 (the config; Art. 12 a: "el
# minimo de vueltas (3)"), a run of 3 is the straight's +350, a run of 2 an invalid throw,
# `too_few_revolutions`, the straight returned (payout 0). One flipped bit turns a 2 into a
# 3 or a 3 into a 2: the right verdicts are the truth's or a hold.
MIN_REVS = 3
EXT_OPEN = "*X;2;094;33;0;160;0;  ; "
EXT_NEXT = "*X;1;095; 5;0;100;0;  ; "
RR_FIELD = (20, 21)


def ext(state: int, number: str, count: int, speed: str = "100") -> str:
    """An extended line of play: ``count`` ball revolutions, the ball counterclockwise."""
    return f"*X;{state};094;{number};0;{speed};0;{count:>2};1"


def extended(final: int, bare: bool) -> list[str]:
    """The game in extended lines, the ball's run ``final`` revolutions."""
    return ([EXT_OPEN] * 2 + [ext(3, "33", count, "160") for count in (1, 1, 2, 2)]
            + [ext(4, "33", final)] * 4 + ([" 5"] if bare else []) + [ext(5, " 5", final)] * 4
            + [EXT_NEXT] * 2)


def of_play(texts: list[str]) -> list[int]:
    """The indexes of the lines of play (states 3, 4 and 5)."""
    return [i for i, text in enumerate(texts) if text.startswith(("*X;3", "*X;4", "*X;5"))]


def wrong_verdict(res: Replay, final: int) -> bool:
    """Anything but the truth of a ``final``-revolution run or a hold: a void (or a void
    for another reason), another number, a payout the truth does not give."""
    numbers = [o["number"] for o in res.of("spin_result")]
    reasons = {r for o in res.of("spin_invalid") for r in o["reasons"]}
    payouts = [s["payout"] for s in res.of("settlement")]
    if final >= MIN_REVS:
        return bool(reasons) or numbers not in ([], ["5"]) or payouts not in ([], [350])
    return bool(numbers) or bool(reasons - {"too_few_revolutions"}) or payouts not in ([], [0])


@pytest.mark.parametrize("bare", [True, False], ids=["bare_line", "bare_line_lost"])
@pytest.mark.parametrize("final", [3, 2], ids=["3_revolutions", "2_revolutions"])
def test_no_single_bit_flip_in_the_ball_revolutions_gives_a_wrong_verdict(
        replay: ReplayFn, final: int, bare: bool) -> None:
    # Every bit but the eighth of both characters of RR, on every line of play: a count is
    # certain only when two lines give it (two at least the minimum; or the last two, of
    # state 5, the same count below it); else the spin waits for the next line, or is held.
    clean = play(replay, extended(final, bare))
    assert not wrong_verdict(clean, final) and not clean.of("spin_held")
    wrong = []
    for index in of_play(extended(final, bare)):
        for field, bit in itertools.product(RR_FIELD, range(7)):
            texts = flip(extended(final, bare), index, field, bit)
            if wrong_verdict(play(replay, texts), final):
                wrong.append(texts[index])
    assert wrong == []


@pytest.mark.parametrize(("field", "name"), [(3, "S"), (18, "D"), (23, "B")])
def test_no_single_bit_flip_in_the_state_or_a_direction_of_an_extended_line_gives_a_wrong_verdict(
        replay: ReplayFn, field: int, name: str) -> None:
    # S 3 read as 2 or 1 on one line ends the ball's play there, its count then 1 or 2:
    # not the ball's run. D read as 1 on one line is the ball turning as the rotor (Art.
    # 12 b) on that line only, or, on the launch line, a rotor that seems to reverse on the
    # next (Art. 12 f): one line, held, never a void.
    wrong = []
    for index in of_play(extended(3, False)):
        for bit in range(7):
            texts = flip(extended(3, False), index, field, bit)
            if wrong_verdict(play(replay, texts), 3):
                wrong.append(texts[index])
    assert wrong == [], name
