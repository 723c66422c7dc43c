"""The line framer every line codec shares (controller/protocols/framing.py): CR, LF or CR LF
line ends, bounded lines, never an exception, the unfinished line handed back on port down."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.protocols.framing import Frame, LineFramer, Overlong

LIMIT = 16
MARKS = (b"<Card:", b"Burn")


def model(data: bytes, limit: int = LIMIT) -> tuple[list[Frame], Frame | None]:
    """What the framer must give for ``data`` fed whole, written from its definition: the
    lines between CR LF, CR or LF; a line over ``limit`` bytes as its length, its first
    ``limit`` bytes and the marks anywhere in it; the bytes after the last line end are
    the unfinished line."""
    *lines, rest = re.split(rb"\r\n|\r|\n", data)

    def frame(line: bytes) -> Frame:
        if len(line) <= limit:
            return line
        return Overlong(len(line), line[:limit], frozenset(m for m in MARKS if m in line))

    return [frame(line) for line in lines], (frame(rest) if rest else None)


def pieces(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]


_WORDS = st.sampled_from([b"[Game]<Card:4S>", b"[Burn]<Card:2C>", b"x" * 40, b"", b" ",
                          b"\xff\x00", b"<Ca", b"rd:", b"Bu", b"rn"])
_ENDS = st.sampled_from([b"\r\n", b"\r", b"\n", b"\n\r", b"", b""])
_STREAMS = st.lists(st.tuples(_WORDS | st.binary(max_size=40), _ENDS)).map(
    lambda pairs: b"".join(word + end for word, end in pairs))


@given(data=_STREAMS, cuts=st.lists(st.integers(min_value=0), max_size=30))
def test_any_split_of_the_input_gives_the_lines_of_the_model(data: bytes,
                                                             cuts: list[int]) -> None:
    framer = LineFramer(LIMIT, MARKS)
    lines = [line for piece in pieces(data, cuts) for line in framer.feed(piece)]
    assert (lines, framer.unfinished()) == model(data)


@given(data=st.binary(max_size=2000), cuts=st.lists(st.integers(min_value=0), max_size=30))
def test_never_raises_on_any_bytes(data: bytes, cuts: list[int]) -> None:
    framer = LineFramer(LIMIT, MARKS)
    lines = [line for piece in pieces(data, cuts) for line in framer.feed(piece)]
    assert (lines, framer.unfinished()) == model(data)


@pytest.mark.parametrize("end", [b"\r\n", b"\n", b"\r"])
def test_cr_lf_and_cr_lf_each_end_a_line(end: bytes) -> None:
    framer = LineFramer(LIMIT)
    assert framer.feed(b"one" + end + b"two" + end) == [b"one", b"two"]
    assert framer.unfinished() is None


def test_a_cr_lf_split_across_two_reads_is_one_line_end() -> None:
    framer = LineFramer(LIMIT)
    assert framer.feed(b"status\r") == [b"status"]  # a CR-terminated line is out at once
    assert framer.feed(b"\nnext\r\n") == [b"next"]  # no empty line for the LF


def test_lf_cr_is_two_line_ends_and_cr_cr_an_empty_line() -> None:
    assert LineFramer(LIMIT).feed(b"a\n\rb\r\rc\n") == [b"a", b"", b"b", b"", b"c"]


def test_a_line_of_exactly_the_limit_is_kept_one_more_byte_is_overlong() -> None:
    framer = LineFramer(LIMIT, MARKS)
    assert framer.feed(b"y" * LIMIT + b"\r\n") == [b"y" * LIMIT]
    assert framer.feed(b"z" * (LIMIT + 1) + b"\r\n") == [
        Overlong(LIMIT + 1, b"z" * LIMIT, frozenset())]


def test_an_overlong_line_reports_its_marks_even_split_between_reads_then_framing_resumes(
) -> None:
    framer = LineFramer(LIMIT, MARKS)
    assert framer.feed(b"x" * 30 + b"<Ca") == []
    assert framer.feed(b"rd:7C> B") == []
    assert framer.feed(b"urn\r\nok\n") == [
        Overlong(44, b"x" * LIMIT, frozenset(MARKS)), b"ok"]


def test_memory_is_bounded_by_the_limit_however_long_the_line() -> None:
    framer = LineFramer(LIMIT, MARKS)
    chunk = b"." * 65536
    for _ in range(160):  # 10 MB without a line end
        assert framer.feed(chunk) == []
    assert len(framer._buf) == 0 and len(framer._tail) < max(map(len, MARKS))
    assert framer.feed(b"\n") == [Overlong(160 * 65536, b"." * LIMIT, frozenset())]


def test_unfinished_line_is_handed_back_once_and_never_joined_to_what_follows() -> None:
    framer = LineFramer(LIMIT, MARKS)
    assert framer.feed(b"done\r\n[Game]<Ca") == [b"done"]
    assert framer.unfinished() == b"[Game]<Ca"
    assert framer.unfinished() is None
    assert framer.feed(b"rd:4S>\r\n") == [b"rd:4S>"]
    framer.feed(b"w" * 20 + b"Burn")
    assert framer.unfinished() == Overlong(24, b"w" * LIMIT, frozenset({b"Burn"}))


def test_reset_forgets_the_line_and_a_pending_cr() -> None:
    framer = LineFramer(LIMIT)
    framer.feed(b"half")
    framer.reset()
    assert framer.feed(b"a\r") == [b"a"]
    framer.reset()
    assert framer.feed(b"\nb\n") == [b"", b"b"]  # the LF no longer belongs to a CR LF


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        LineFramer(0)
    with pytest.raises(ValueError):
        LineFramer(8, (b"",))
