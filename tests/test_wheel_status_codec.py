"""The status-line codec of automated wheels (issue 12): bytes in, line records out, no I/O.

Expected fields are read off the issue's own examples and its description of the protocol
(``*X;S;GGG;NN;W;SSS;D``; extended ``;RR;B``), never from the codec.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.protocols import make_codec
from controller.protocols.wheel_status import (
    MAX_LINE_BYTES,
    BadStatusLine,
    CommandAnswer,
    NumberLine,
    OverlongLine,
    StatusLine,
    StatusLineCodec,
    UnknownLine,
    VersionLine,
)


def lines_of(data: bytes) -> list[object]:
    return StatusLineCodec().feed(data)


def one(text: str) -> object:
    found = lines_of(text.encode("latin-1") + b"\r")
    assert len(found) == 1, found
    return found[0]


# -- the examples -------------------------------------------------------------
@pytest.mark.parametrize(("text", "fields"), [
    # *X;S;GGG;NN;W;SSS;D: state, game counter, last number, flags, speed, direction
    ("*X;3;241;32;0;137;0", (3, 241, "32", 0, 137, "cw")),
    ("*X;6;117;13;0;002;0", (6, 117, "13", 0, 2, "cw")),
    ("*X;2;094;33;0;163;0", (2, 94, "33", 0, 163, "cw")),
    # one digit padded with a space; NN blank until the first result, a fault flag up
    ("*X;5;037; 0;0;194;0", (5, 37, "0", 0, 194, "cw")),
    ("*X;6;001;  ;4;000;0", (6, 1, None, 4, 0, "cw")),
    ("*X;2;500;00;0;150;1", (2, 500, "00", 0, 150, "ccw")),  # double zero; D 1 is ccw
    ("*X;4;146;36;F;158;1", (4, 146, "36", 15, 158, "ccw")),  # every flag: hex F
])
def test_example_status_lines(text: str, fields: tuple[object, ...]) -> None:
    line = one(text)
    assert isinstance(line, StatusLine)
    assert (line.state, line.game, line.number, line.flags, line.speed,
            line.direction) == fields
    assert line.text == text and not line.extended
    assert (line.revolutions, line.ball_direction) == (None, None)


def test_the_extended_line_adds_ball_revolutions_and_direction() -> None:
    line = one("*X;5;037;17;0;194;0;12;1")
    assert isinstance(line, StatusLine) and line.extended
    assert (line.number, line.revolutions, line.ball_direction) == ("17", 12, "ccw")
    blank = one("*X;2;037;17;0;194;0;  ; ")
    assert isinstance(blank, StatusLine) and blank.extended
    assert (blank.revolutions, blank.ball_direction) == (None, None)
    padded = one("*X;3;037;17;0;194;0; 2;0")
    assert isinstance(padded, StatusLine) and (padded.revolutions, padded.ball_direction) == (
        2, "cw")


def test_the_bare_winning_number_line() -> None:
    assert one("32") == NumberLine("32", "32")
    assert one(" 0") == NumberLine("0", " 0")
    assert one("00") == NumberLine("00", "00")
    assert isinstance(one("37"), UnknownLine)  # no pocket 37
    assert isinstance(one("07"), UnknownLine)  # neither padded nor double zero
    assert one("7") == NumberLine("7", "7")  # one digit, not padded
    assert isinstance(one(" 17"), UnknownLine)  # three characters: not the number's form


@pytest.mark.parametrize(("text", "command", "answer"), [
    ("*P OK", "P", "OK"), ("*P NO", "P", "NO"), ("*o BUSY", "o", "BUSY"),
    ("*u OK", "u", "OK"), ("*T s 14.0 17.5", "T", "s 14.0 17.5"),
])
def test_command_answers(text: str, command: str, answer: str) -> None:
    assert one(text) == CommandAnswer(command, answer, text)


def test_the_version_line() -> None:
    assert one("*V 4.12 Mercury") == VersionLine("4.12 Mercury", "*V 4.12 Mercury")


# -- bad lines: counted by the tracker, never partly used ------------------------------
@pytest.mark.parametrize(("text", "field"), [
    ("*X;4;14*X;*X;4;146; 9;0;158;0", "fields"),  # the garbled line
    ("*X;8;094;33;0;163;0", "S"),
    ("*X;3;0x4;33;0;163;0", "GGG"),
    ("*X;3;094;37;0;163;0", "NN"),
    ("*X;3;094;07;0;163;0", "NN"),
    ("*X;3;094;3;0;163;0", "NN"),
    ("*X;3;094;33;G;163;0", "W"),
    ("*X;3;094;33;0;1a3;0", "SSS"),
    ("*X;3;094;33;0;163;2", "D"),
    ("*X;3;094;33;0;163;0;x1;0", "RR"),
    ("*X;3;094;33;0;163;0;12;5", "B"),
    ("*X;3;094;33;0;163", "fields"),
    # the widths of the format: GGG and SSS three digits, RR two characters (two
    # digits, one digit padded with a space, or blank), B one character
    ("*X;3;94;33;0;163;0", "GGG"),
    ("*X;3;0094;33;0;163;0", "GGG"),
    ("*X;3; 94;33;0;163;0", "GGG"),
    ("*X;3;094;33;0;     120;0", "SSS"),
    ("*X;3;094;33;0;12;0", "SSS"),
    ("*X;3;094;33;0;0120;0", "SSS"),
    ("*X;3;094;33;0;  7;0", "SSS"),
    ("*X;3;094;33;0;163;0;5;1", "RR"),
    ("*X;3;094;33;0;163;0;123;1", "RR"),
    ("*X;3;094;33;0;163;0;12;  ", "B"),
    ("*X;3;094;33;0;163;0;12;", "B"),
])
def test_a_bad_field_makes_the_line_bad(text: str, field: str) -> None:
    line = one(text)
    assert isinstance(line, BadStatusLine)
    assert (line.text, line.field) == (text, field)
    assert line.why


def test_unknown_lines_and_blank_lines() -> None:
    assert one("HELLO") == UnknownLine("HELLO")
    assert lines_of(b"\r\r  \r\n\n") == []


def test_an_overlong_line_is_dropped_and_the_next_decodes() -> None:
    data = b"*X;" + b"9" * 300 + b"\r*X;2;094;33;0;163;0\r"
    found = lines_of(data)
    assert found[0] == OverlongLine(303)
    assert isinstance(found[1], StatusLine) and found[1].state == 2
    # exactly the limit still fits
    assert isinstance(lines_of(b"A" * MAX_LINE_BYTES + b"\r")[0], UnknownLine)
    assert lines_of(b"A" * (MAX_LINE_BYTES + 1) + b"\r") == [OverlongLine(MAX_LINE_BYTES + 1)]


@pytest.mark.parametrize("end", [b"\r", b"\n", b"\r\n"])
def test_line_ends(end: bytes) -> None:
    found = lines_of(b"*X;2;094;33;0;163;0" + end + b"*X;3;094;33;0;163;0" + end)
    assert [getattr(x, "state", None) for x in found] == [2, 3]


def test_a_cr_lf_split_between_reads_is_one_line_end() -> None:
    codec = StatusLineCodec()
    assert len(codec.feed(b"*X;2;094;33;0;163;0\r")) == 1
    assert codec.feed(b"\n") == []
    assert len(codec.feed(b"*X;3;094;33;0;163;0\r")) == 1


def test_reset_forgets_the_line_under_way() -> None:
    codec = StatusLineCodec()
    codec.feed(b"*X;3;094;3")
    codec.reset()
    found = codec.feed(b"3;0;163;0\r*X;4;094;33;0;163;0\r")
    assert isinstance(found[0], UnknownLine) and found[0].text == "3;0;163;0"
    assert isinstance(found[1], StatusLine)


def test_make_codec_knows_status_line() -> None:
    assert isinstance(make_codec("status_line"), StatusLineCodec)


# -- any split gives the same lines --------------------------------------------------
def _burst(seed: int) -> bytes:
    """200 lines of every kind, mixed line ends, some bad, some blank (a bare number line of
    two spaces) and one over-long."""
    rng = random.Random(seed)
    kinds = ["*X;{s};{g:03d};{n};{w};{v:03d};{d}", "{n}", "*P OK", "*o BUSY", "*V 1.0",
             "*X;4;14*X;*X;4;146; 9;0;158;0", "junk", "*X;3;094;33;0;163;0;12;1"]
    out = []
    for i in range(200):
        text = rng.choice(kinds).format(s=rng.randint(1, 7), g=rng.randint(0, 999),
                                        n=rng.choice(["  ", " 5", "17", "00"]),
                                        w=rng.choice("0124F"), v=rng.randint(0, 999),
                                        d=rng.randint(0, 1))
        if i == 100:
            text = "X" * 200
        out.append(text.encode() + rng.choice([b"\r", b"\n", b"\r\n"]))
    return b"".join(out)


def test_a_burst_of_200_lines_split_at_every_byte_gives_the_same_lines() -> None:
    data = _burst(1)
    whole = lines_of(data)
    blanks = sum(1 for line in data.replace(b"\r\n", b"\r").replace(b"\n", b"\r").split(b"\r")[:-1]
                 if not line.strip())
    assert len(whole) == 200 - blanks and OverlongLine(200) in whole
    for cut in range(len(data) + 1):
        codec = StatusLineCodec()
        assert codec.feed(data[:cut]) + codec.feed(data[cut:]) == whole, cut
    codec = StatusLineCodec()
    assert [x for i in range(len(data)) for x in codec.feed(data[i:i + 1])] == whole


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.lists(st.integers(1, 40), min_size=1, max_size=400))
def test_any_split_of_a_burst_gives_the_same_lines(seed: int, sizes: list[int]) -> None:
    data = _burst(seed)
    codec = StatusLineCodec()
    got: list[object] = []
    pos = 0
    for size in sizes:
        got += codec.feed(data[pos:pos + size])
        pos += size
    got += codec.feed(data[pos:])
    assert got == lines_of(data)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400))
def test_the_codec_never_raises(data: bytes) -> None:
    found = StatusLineCodec().feed(data)
    assert all(isinstance(x, StatusLine | NumberLine | CommandAnswer | VersionLine
                          | BadStatusLine | UnknownLine | OverlongLine) for x in found)
