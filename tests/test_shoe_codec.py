"""The reference shoe reader codec (CONTRACT §4): bytes in, lines out."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.cards.card import Card, full_deck
from controller.cards.shoe_lines import (
    BadCardLine,
    CardLine,
    CutCardLine,
    CutOffLine,
    MisreadLine,
    OverlongLine,
    ReaderAlarm,
    ReaderWarning,
    ShoeLine,
    UnknownLine,
)
from controller.cards.shoe_reference import MAX_LINE_BYTES, ReferenceShoeCodec
from controller.protocols import make_codec


def decode(data: bytes) -> list[ShoeLine]:
    return ReferenceShoeCodec().feed(data)


def test_burst_of_500_lines_in_one_feed() -> None:
    deck = full_deck()
    cards = [deck[i % 52] for i in range(500)]
    data = b"".join(f"[Game]<Card:{c}>\r\n".encode() for c in cards)
    assert decode(data) == [CardLine(c, burn=False) for c in cards]


def test_line_split_in_three_feeds() -> None:
    codec = ReferenceShoeCodec()
    assert codec.feed(b"[Ga") == []
    assert codec.feed(b"me]<Card:1") == []
    assert codec.feed(b"0h>\r\n") == [CardLine(Card("T", "H"), burn=False)]


def test_cr_and_lf_split_across_feeds_are_one_line_end() -> None:
    codec = ReferenceShoeCodec()
    assert codec.feed(b"[Cut]\r") == [CutCardLine()]  # CR ends the line at once
    assert codec.feed(b"\n[Cut]\n") == [CutCardLine()]  # its LF ends nothing more


@pytest.mark.parametrize("end", [b"\r\n", b"\n", b"\r"])
def test_line_ends(end: bytes) -> None:
    assert decode(b"[Game]<Card:4S>" + end + b"[Cut]" + end) == [
        CardLine(Card("4", "S"), burn=False),
        CutCardLine(),
    ]


def test_garbage_between_lines_is_unknown_never_an_exception() -> None:
    data = b"[Game]<Card:4S>\r\n\x00\xff\x13garbage\r\n[Game]<Card:5S>\r\n"
    assert decode(data) == [
        CardLine(Card("4", "S"), burn=False),
        UnknownLine("\x00\xff\x13garbage"),
        CardLine(Card("5", "S"), burn=False),
    ]


def test_garbage_before_a_card_is_not_guessed_as_the_card() -> None:
    # The card passed but its line is damaged: a misread, corrected by the dealer (CONTRACT §4).
    assert decode(b"\x00[Game]<Card:4S>\r\n") == [MisreadLine()]


def test_blank_lines_are_skipped() -> None:
    assert decode(b"\r\n\n  \r\n[Cut]\r\n") == [CutCardLine()]


def test_overlong_line_then_a_good_line() -> None:
    long = b"x" * 1000
    codec = ReferenceShoeCodec()
    # Fed in pieces, so the buffer overflows before the line end arrives.
    assert codec.feed(long[:300]) == []
    assert codec.feed(long[300:] + b"\r\n[Game]<Card:AS>\r\n") == [
        OverlongLine(1000),
        CardLine(Card("A", "S"), burn=False),
    ]


def test_line_of_exactly_the_limit_is_kept() -> None:
    text = "<Alarm:E9 " + "y" * (MAX_LINE_BYTES - 11) + ">"
    assert len(text) == MAX_LINE_BYTES
    assert decode(text.encode() + b"\r\n") == [ReaderAlarm("E9", "y" * (MAX_LINE_BYTES - 11))]
    assert decode(b"z" * (MAX_LINE_BYTES + 1) + b"\r\n") == [OverlongLine(MAX_LINE_BYTES + 1)]


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("4S", Card("4", "S")),
        ("S4", Card("4", "S")),
        ("10h", Card("T", "H")),
        ("h10", Card("T", "H")),
        ("Td", Card("T", "D")),
        ("dT", Card("T", "D")),
        ("ac", Card("A", "C")),
        ("KH", Card("K", "H")),
        ("sq", Card("Q", "S")),
        ("Jd", Card("J", "D")),
        ("9C", Card("9", "C")),
        ("2s", Card("2", "S")),
    ],
)
def test_every_card_form(text: str, card: Card) -> None:
    assert decode(f"[Game]<Card:{text}>\r\n".encode()) == [CardLine(card, burn=False)]
    assert decode(f"[Burn]<Card:{text}>\r\n".encode()) == [CardLine(card, burn=True)]
    assert decode(f"[Manual Burn Cards]<Card:{text}>\r\n".encode()) == [CardLine(card, burn=True)]


def test_misread_and_cut() -> None:
    assert decode(b"[Game]<Game>\r\n[Cut]\r\n") == [MisreadLine(), CutCardLine()]


@pytest.mark.parametrize("text", ["[Game]<Card:JK>", "[Game]<Card:1X>", "[Burn]<Card:Joker>"])
def test_joker_or_unreadable_rank_is_a_bad_card(text: str) -> None:
    assert decode(text.encode() + b"\r\n") == [BadCardLine(text)]


def test_reader_alarm_and_warning() -> None:
    assert decode(b"<Alarm:E3 Card Not Read>\r\n<W0x1F>\r\n<Alarm:E7>\r\n") == [
        ReaderAlarm("E3", "Card Not Read"),
        ReaderWarning(0x1F),
        ReaderAlarm("E7", ""),
    ]


def test_reset_drops_an_unfinished_line() -> None:
    codec = ReferenceShoeCodec()
    codec.feed(b"[Game]<Ca")
    codec.reset()
    assert codec.feed(b"[Cut]\r\n") == [CutCardLine()]


# -- a line cut by a port outage (issue 6 item 9): dropped, never spliced, card not lost -----
@pytest.mark.parametrize(("partial", "lost", "then"), [
    (b"[Game]<Card:", "game", [MisreadLine()]),
    (b"[Game]<Card:4S", "game", [MisreadLine()]),  # the line end never came: not a read
    (b"[Game]<Ga", "game", [MisreadLine()]),
    (b"[G", "game", [MisreadLine()]),
    (b"[", "game", [MisreadLine()]),  # could still be [Game]
    (b"<", "game", [MisreadLine()]),  # could still be <Card:
    (b"\x00\xffTD", "game", [MisreadLine()]),  # noise: cannot be shown to hold no card
    (b"[Burn]<Card:K", "burn", [BadCardLine("[Burn]<Card:K")]),
    (b"[Bu", "burn", [BadCardLine("[Bu")]),
    (b"[Manual Burn", "burn", [BadCardLine("[Manual Burn")]),
    (b"[Cu", "cut", [CutCardLine()]),
    (b"<Alarm:E3 Card Not Re", None, []),
    (b"<W0x1", None, []),
])
def test_line_cut_by_a_port_outage_is_dropped_and_its_card_reported(
    partial: bytes, lost: str | None, then: list[ShoeLine]
) -> None:
    codec = ReferenceShoeCodec()
    assert codec.feed(b"[Game]<Card:9S>\r\n" + partial) == [CardLine(Card("9", "S"), burn=False)]
    (cut_off, *rest) = codec.port_down()
    assert isinstance(cut_off, CutOffLine)
    assert cut_off.lost == lost and cut_off.length == len(partial)
    assert rest == then
    # The rest of the line, after the replug, is a line of its own: never "[Game]<Card:TD>".
    assert codec.feed(b"TD>\r\n[Cut]\r\n") == [UnknownLine("TD>", may_be_card=True), CutCardLine()]
    assert codec.port_down() == []  # nothing under way any more


def test_a_card_line_ended_by_cr_before_a_port_outage_is_read() -> None:
    # CR ends a line (the shared framer): the card line is whole, its LF never needed.
    codec = ReferenceShoeCodec()
    assert codec.feed(b"[Game]<Card:4S>\r") == [CardLine(Card("4", "S"), burn=False)]
    assert codec.port_down() == []


def test_a_card_line_cut_by_a_port_outage_keeps_its_card_out_of_the_alarm() -> None:
    codec = ReferenceShoeCodec()
    codec.feed(b"[Game]<Card:3H")  # perhaps the Banca's face-down card (seed 000 Art. 6)
    (cut_off, misread) = codec.port_down()
    assert cut_off == CutOffLine(14, "game", "") and misread == MisreadLine()


@pytest.mark.parametrize("partial", [b"", b"\r", b" \r"])
def test_port_outage_between_lines_loses_nothing(partial: bytes) -> None:
    codec = ReferenceShoeCodec()
    codec.feed(b"[Cut]\r\n" + partial)
    assert codec.port_down() == []


def test_overlong_line_cut_by_a_port_outage() -> None:
    codec = ReferenceShoeCodec()
    codec.feed(b"x" * 300 + b"[Game]<Card:4")
    assert codec.port_down() == [OverlongLine(313), CutOffLine(313, "game", ""), MisreadLine()]
    codec.feed(b"<Alarm:E9 " + b"y" * 300)
    assert codec.port_down() == [OverlongLine(310), CutOffLine(310, None, "<Alarm:E9 " + "y" * 246)]


def test_make_codec() -> None:
    assert isinstance(make_codec("reference"), ReferenceShoeCodec)
    with pytest.raises(ValueError, match="reference"):
        make_codec("other")


_VALID_LINES = st.sampled_from(
    [
        b"[Game]<Card:4S>",
        b"[Burn]<Card:10h>",
        b"[Manual Burn Cards]<Card:dT>",
        b"[Game]<Game>",
        b"[Cut]",
        b"<Alarm:E3 Card Not Read>",
        b"<W0x01>",
        b"[Game]<Card:JK>",
    ]
)
_STREAMS = st.lists(
    st.tuples(_VALID_LINES | st.binary(max_size=300), st.sampled_from([b"\r\n", b"\n", b"\r"]))
).map(lambda pairs: b"".join(line + end for line, end in pairs))


@given(data=_STREAMS, cuts=st.lists(st.integers(min_value=0), max_size=20))
def test_any_split_yields_the_same_lines(data: bytes, cuts: list[int]) -> None:
    points = sorted({c % (len(data) + 1) for c in cuts})
    pieces = [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]
    codec = ReferenceShoeCodec()
    split = [line for piece in pieces for line in codec.feed(piece)]
    assert split == decode(data)


# -- over-long lines that show a card passed (CONTRACT §4: a misread is never guessed) ------
_NOISE = bytes(b for b in range(256) if b not in (0x0A, 0x0D))  # no line end, no card mark


@pytest.mark.parametrize("pieces", [1, 7])
def test_overlong_game_card_line_is_an_alarm_then_a_misread(pieces: int) -> None:
    data = b"[Game]<Card:4S" + b"#" * 300 + b">\r\n[Game]<Card:5H>\r\n"
    codec = ReferenceShoeCodec()
    size = -(-len(data) // pieces)
    lines = [line for i in range(0, len(data), size) for line in codec.feed(data[i:i + size])]
    # The card passed the reader: it is not lost, so the next card goes to the next hand.
    assert lines == [OverlongLine(315), MisreadLine(), CardLine(Card("5", "H"), burn=False)]


def test_overlong_burn_line_is_a_bad_card() -> None:
    data = b"[Burn]<Card:" + b"?" * 300 + b">\r\n"
    (alarm, bad) = decode(data)
    assert alarm == OverlongLine(len(data) - 2)
    assert isinstance(bad, BadCardLine) and bad.text.startswith("[Burn]<Card:")
    assert len(bad.text) <= MAX_LINE_BYTES


def test_a_card_mark_split_between_two_reads_of_an_overlong_line_is_seen() -> None:
    codec = ReferenceShoeCodec()
    assert codec.feed(b"x" * 400 + b"[Ga") == []
    assert codec.feed(b"me]<Card:7C>\r\n") == [OverlongLine(415), MisreadLine()]


def test_line_of_limit_plus_one_that_shows_a_card_is_a_misread() -> None:
    text = b"[Game]<Card:4S>" + b" " * (MAX_LINE_BYTES + 1 - 15)
    assert decode(text + b"\n") == [OverlongLine(MAX_LINE_BYTES + 1), MisreadLine()]


def test_overlong_noise_without_a_card_mark_is_only_the_alarm() -> None:
    assert decode(_NOISE * 4 + b"\r\n") == [OverlongLine(len(_NOISE) * 4)]


@pytest.mark.parametrize("read_size", [4096, 50_000_000])
def test_50_mb_of_noise_without_a_line_end_then_a_card_line(read_size: int) -> None:
    noise = (_NOISE * (50_000_000 // len(_NOISE) + 1))[:50_000_000]
    data = noise + b"\r\n[Game]<Card:QD>\r\n"
    codec = ReferenceShoeCodec()
    lines = [line for i in range(0, len(data), read_size)
             for line in codec.feed(data[i:i + read_size])]
    assert lines == [OverlongLine(50_000_000), CardLine(Card("Q", "D"), burn=False)]


def test_50_mb_of_noise_run_into_a_card_line_is_a_misread() -> None:
    # The line end between them was lost: the card is inside the over-long line.
    noise = (_NOISE * (50_000_000 // len(_NOISE) + 1))[:50_000_000]
    codec = ReferenceShoeCodec()
    lines = [line for i in range(0, len(noise), 1 << 16) for line in codec.feed(noise[i:i + 65536])]
    lines += codec.feed(b"[Game]<Card:QD>\r\n[Cut]\r\n")
    assert lines == [OverlongLine(50_000_015), MisreadLine(), CutCardLine()]


@pytest.mark.parametrize(("line", "may_be_card"), [
    ("rd:5H>", True), ("5H>", True), (":QC", True), ("[Gam", True), ("[", True),
    ("[Burn]<Ca", True), ("\x00\xff\x13garbage", False), ("@@", False), ("[Cu", False),
    ("HELLO", False),
    # Bytes lost or garbled in the middle (a UART overrun, a noisy cable): the face at
    # the end, or three bytes in a row of the frame "[Game]<Card:", still show a card.
    ("[Gamrd:KS>", True), ("[Gxme]<Cxrd:KS>", True), ("[Gxme]<Cxrd:K#>", True),
    ("#Gxme#<Cxrd:10h>", True), ("xxxxxxxxxxxxS4>", True), ("[Gxmx]#Cxrx:KS", True),
    ("S>", True), (">", True),
    # What the reader says that holds no card, damaged: an alarm or a warning that lost
    # its end ("Card Not Read" is no card line), noise with nothing of a card line.
    ("<Alarm:E3 Card Not Read", False), ("<W0x1", False), ("\xff\xfe\x00", False),
    ("<Alarm:E3 Card Not Read>[Gamrd:KS>", True)])
def test_what_is_left_of_a_card_line_says_a_card_may_have_passed(
    line: str, may_be_card: bool,
) -> None:
    (read,) = ReferenceShoeCodec().feed(line.encode("latin-1") + b"\r\n")
    assert read == UnknownLine(line, may_be_card=may_be_card)
