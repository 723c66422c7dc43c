"""A trace file is read a chunk of lines at a time (many lines parsed as one JSON text),
its words looked for in its own game first (issue 20: a replay imports only its own
game): the events, and the line and field an error names, are those of every line read
as JSON alone, however the file is cut into chunks, spaced, or ended (CR LF, blank lines,
no last newline)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import one_spin

from controller import trace_lines
from controller.cli.compose import games
from controller.core.errors import TraceError
from controller.trace import read_trace, trace_from_objects


def objects() -> list[dict]:
    tb, _ = one_spin(bets=({"t": 0.5, "bet": "red", "box": 1, "amount": 10},))
    return tb.events()


def as_json(objs: list[dict]) -> list[tuple[int, dict]]:
    return list(enumerate(objs, 1))


def write(path: Path, lines: list[str], end: str = "\n") -> Path:
    path.write_bytes("".join(line + end for line in lines).encode())
    return path


@pytest.mark.parametrize("chunk", [3, 50, 4096])
@pytest.mark.parametrize("style", ["compact", "spaced", "crlf", "blank lines", "no last newline"])
def test_the_events_are_those_of_every_line_read_as_json(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int, style: str) -> None:
    monkeypatch.setattr(trace_lines, "_CHUNK", chunk)
    objs = objects()
    spaced = style == "spaced"
    lines = [json.dumps(o) if spaced else json.dumps(o, separators=(",", ":")) for o in objs]
    if style == "blank lines":
        lines = [x for line in lines for x in (line, "", "  ")]
    path = tmp_path / "trace.jsonl"
    if style == "crlf":
        write(path, lines, "\r\n")
    elif style == "no last newline":
        path.write_text("\n".join(lines))
    else:
        write(path, lines)
    got = read_trace(str(path), games())
    want = trace_from_objects(str(path), as_json(objs), games())
    assert list(got.events) == list(want.events)
    assert got.meta == want.meta
    if style != "blank lines":  # there every line's number is three times another's
        assert got.first_lines == want.first_lines
    gpio = sum(1 for o in objs if "gpio" in o)
    assert gpio > 50 and sum(1 for e in got.events if hasattr(e, "level")) == gpio


BAD = {  # a GPIO line's text -> the field named
    '{"t":0.5,"gpio":"ball_a","level":1}': "t",  # goes back in time
    '{"t":99.0,"gpio":"ball_c","level":1}': "gpio",  # no table reads it
    '{"t":99.0,"gpio":"ball_a","level":2}': "level",
    '{"t":1e999,"gpio":"ball_a","level":1}': None,  # not a number a trace may hold
    '{"t":9007199254740993,"gpio":"ball_a","level":1}': "t",
    '{"t":99.0,"gpio":"ball_a","gpio":"ball_b","level":1}': "gpio",  # given twice
    '{"t":01.5,"gpio":"ball_a","level":1}': None,  # not JSON
}


@pytest.mark.parametrize("bad", BAD)
@pytest.mark.parametrize("chunk", [3, 4096])
def test_a_bad_gpio_line_amid_others_is_named_with_its_field(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bad: str, chunk: int) -> None:
    monkeypatch.setattr(trace_lines, "_CHUNK", chunk)
    lines = [json.dumps(o, separators=(",", ":")) for o in objects()]
    at = next(i for i, line in enumerate(lines) if '"gpio"' in line and i > 40)
    assert '"gpio"' in lines[at - 1] and '"gpio"' in lines[at + 1]  # amid a run
    lines[at] = bad.replace("99.0", str(json.loads(lines[at - 1])["t"]))
    with pytest.raises(TraceError) as caught:
        read_trace(str(write(tmp_path / "trace.jsonl", lines)), games())
    message = str(caught.value)
    assert f"trace.jsonl:{at + 1}" in message
    field = BAD[bad]
    if field is not None:
        assert f"'{field}'" in message or f" {field}" in message, message
