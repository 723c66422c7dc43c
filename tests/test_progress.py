"""The progress bar of long computations (``tablectl analyze``): a bar that redraws itself
on a terminal; on a file or a pipe (stderr redirected) at most a line at the start and one
at the end, never carriage returns."""

from __future__ import annotations

import io

from controller.cli.progress import ProgressBar


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def work(stream: io.StringIO) -> str:
    bar = ProgressBar(stream, after_s=0.0)
    for step in range(201):
        bar.update(step / 200)
    bar.close()
    return stream.getvalue()


def test_on_a_file_the_progress_is_a_line_at_the_start_and_one_at_the_end() -> None:
    # `tablectl analyze draw_poker >/dev/null 2>file` wrote 5 KB of redrawn bars.
    out = work(io.StringIO())
    assert "\r" not in out
    start, end = out.splitlines()
    assert start.startswith("working: 0.0% done") and end.startswith("done in ")


def test_on_a_terminal_the_bar_redraws_one_line() -> None:
    out = work(Terminal())
    assert out.count("\r") == 201 and out.endswith("100.0%\n") and out.count("\n") == 1


def test_a_quick_answer_shows_no_progress() -> None:
    bar = ProgressBar(io.StringIO(), after_s=3600.0)
    bar.update(0.5)
    bar.close()
    assert isinstance(bar.stream, io.StringIO) and bar.stream.getvalue() == ""
