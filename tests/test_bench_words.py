"""`make bench` prints its figures for a person at an 80-column terminal: every line the
bench writes is cut at spaces, its continuations indented under it, a path kept whole."""

from __future__ import annotations

import io
import sys

from conftest import REPO


def test_the_bench_s_lines_fit_80_columns() -> None:
    sys.path.insert(0, str(REPO / "bench"))
    try:
        from harness import Fitted
    finally:
        sys.path.remove(str(REPO / "bench"))
    out = io.StringIO()
    stream = Fitted(out)
    print("   each input that journals records, its first record (the decision) to its "
          "commit: p50 0.74 ms, p99 1.82 ms over 317", file=stream)
    print("   journal /a/" + "long" * 30 + ".sqlite", file=stream)
    print("== short", file=stream, end="")
    stream.flush()
    assert out.getvalue() == (
        "   each input that journals records, its first record (the decision) to its\n"
        "     commit: p50 0.74 ms, p99 1.82 ms over 317\n"
        "   journal\n"
        "     /a/" + "long" * 30 + ".sqlite\n"
        "== short")
