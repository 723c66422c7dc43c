"""The table's screen (issue 17), measured in Debian's headless Chromium and printed next to
its goals (``make bench``, section 10). Nothing here asserts: it measures and prints.

- commit to page: records committed one at a time (synchronous=FULL) into a journal
  ``table-display`` follows; a MutationObserver in the page stamps each new record shown
  (``body[data-seq]``) with the wall clock; stamp minus the commit's time, p50 and p99
  (goal: p99 at most 250 ms);
- the display's resident memory caught up on a tenth of a day's Mini-Bacará journal and
  on the whole day (a coup a minute: 1,440 coups), goal at most 80 MB and flat;
- its CPU while nothing is committed, over ``BENCH_DISPLAY_IDLE_S`` s (20), goal under 1 %;
- the first paint of ``/`` (Chromium's first-contentful-paint), goal at most 1 s;
- the pit page's statistics (issue 21) brought up to date at a result, the window full
  (``[display] stats_history``, 500 spins) so it slides, in memory: no journal read; goal
  p99 at most 50 ms (a fifth of the commit-to-page goal).

The bench's ``pi`` section runs this section again inside a fifth of a core (one Pi 4
core, ``bench/harness.py`` ``Quota``), where a CPU cgroup can be made.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from harness import met  # noqa: E402  (bench/, the script's folder)
from journals import tile  # noqa: E402

from tests.display_helpers import (  # noqa: E402
    Copier,
    config_of,
    display,
    simulated_journal,
)

LIVE_RECORDS = 120
DAY_RECORDS = 1440 * 45  # a coup a minute, some 45 records a coup
OBSERVER = """
window.__stamps = [];
new MutationObserver(() => window.__stamps.push(
    [Number(document.body.dataset.seq), performance.timeOrigin + performance.now()]))
  .observe(document.body, {attributes: true, attributeFilter: ["data-seq"]});
"""


def _browser(scratch: Path) -> Any:
    os.environ["SE_OFFLINE"] = "true"
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(shutil.which("chromium"))
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run", "--window-size=1920,1080",
                f"--user-data-dir={scratch / 'chromium'}"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(executable_path=str(shutil.which("chromedriver"))),
                            options=options)


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _latency(browser: Any, source: Path, scratch: Path) -> tuple[list[float], float]:
    """(commit-to-page latencies in ms, first paint of / in ms)."""
    copier = Copier(source, scratch / "live.sqlite")
    copier.db.execute("PRAGMA synchronous=FULL")
    start = copier.rows[-LIVE_RECORDS - 1][0]
    copier.upto(start)
    committed: dict[int, float] = {}
    with display(scratch / "live.sqlite", config_of("mini_baccarat")) as shown:
        browser.get(shown.url)
        paint = None
        for _ in range(50):  # Chromium records the paint entry just after the load ends
            paint = browser.execute_script(
                "const p = performance.getEntriesByName('first-contentful-paint')[0];"
                "return p ? p.startTime : null;")
            if paint is not None:
                break
            time.sleep(0.1)
        browser.execute_script(OBSERVER)
        for seq, *_ in copier.rows[copier.done:]:
            copier.upto(seq)
            committed[seq] = time.time() * 1000
            time.sleep(0.05)  # a dealer's pace is slower still: each commit on its own
        time.sleep(1)
        stamps = browser.execute_script("return window.__stamps;")
    copier.close()
    latencies = []
    for seq, t in committed.items():
        shown_at = next((s for n, s in stamps if n >= seq), None)
        if shown_at is not None:
            latencies.append(shown_at - t)
    return latencies, float(paint or 0)


def _memory_and_idle(source: Path, scratch: Path) -> tuple[float, float, float, float]:
    """(RSS MB on a tenth of a day, RSS MB on a day, idle CPU %, idle seconds)."""
    small, day = scratch / "tenth.sqlite", scratch / "day.sqlite"
    tile(source, small, DAY_RECORDS // 10)
    tile(source, day, DAY_RECORDS)
    sizes = []
    for journal in (small, day):
        db = sqlite3.connect(journal)
        head = db.execute("SELECT max(seq) FROM records").fetchone()[0]
        db.close()
        with display(journal, config_of("mini_baccarat")) as shown:
            shown.wait_seq(head, timeout=600)
            sizes.append(_rss_mb(shown.proc.pid))
            if journal == day:
                idle_s = float(os.environ.get("BENCH_DISPLAY_IDLE_S", "20"))
                before = _cpu_s(shown.proc.pid)
                time.sleep(idle_s)
                cpu = 100 * (_cpu_s(shown.proc.pid) - before) / idle_s
    return sizes[0], sizes[1], cpu, idle_s


def _pit_stats(results: int = 1500, history: int = 500) -> list[float]:
    """Milliseconds to fold one roulette result and make the figures, each of ``results``
    (every record given whole, as the board gives it, none read from a journal)."""
    import random

    from controller.cli.compose import load_config
    from controller.games.roulette.layout import WHEEL_ORDERS
    from display.pitstats import PitStats

    table = load_config("embedded:default.toml")
    pit = PitStats(table.spec, table, history)
    pockets = WHEEL_ORDERS[table.rules.wheel]  # type: ignore[attr-defined]
    rng, times = random.Random(5), []
    for spin in range(1, results + 1):
        record = {"type": "spin_result", "seq": spin, "spin": spin,
                  "number": rng.choice(pockets)}
        began = time.perf_counter()
        pit.feed(record)
        pit.figures()
        times.append((time.perf_counter() - began) * 1000)
    return times[history:]  # the window full: each result slides it


def bench_display(scratch: Path) -> None:
    print("== display: the table's screen (table-display, headless Chromium)")
    slide = _pit_stats()
    print(f"   pit statistics at a result, 500-spin window sliding, in memory: p50 "
          f"{statistics.median(slide):.1f} ms, p99 {_pct(slide, 0.99):.1f} ms (goal p99 at "
          f"most 50 ms: {met(_pct(slide, 0.99) <= 50)})")
    if shutil.which("chromium") is None or shutil.which("chromedriver") is None:
        print("   skipped: Debian's chromium and chromium-driver are not installed")
        return
    folder = scratch / "display"
    folder.mkdir()
    source = simulated_journal("mini_baccarat", folder, seed=5)
    browser = _browser(folder)
    try:
        latencies, paint = _latency(browser, source, folder)
    finally:
        browser.quit()
    p50, p99 = statistics.median(latencies), _pct(latencies, 0.99)
    print(f"   commit to page ({len(latencies)} records, each committed on its own): "
          f"p50 {p50:.1f} ms, p99 {p99:.1f} ms (goal p99 at most 250 ms: {met(p99 <= 250)})")
    if paint:
        print(f"   first paint of /: {paint:.0f} ms (goal at most 1000 ms: "
              f"{met(paint <= 1000)})")
    else:
        print("   first paint of /: Chromium recorded none within 5 s (goal at most 1000 "
              "ms: NOT met)")
    tenth, day, cpu, idle_s = _memory_and_idle(source, folder)
    print(f"   resident memory caught up on {DAY_RECORDS // 10:,} records: {tenth:.1f} MB; on "
          f"a day's {DAY_RECORDS:,}: {day:.1f} MB (goal at most 80 MB and flat: "
          f"{met(day <= 80 and day <= tenth * 1.2)})")
    print(f"   CPU while nothing is committed, {idle_s:.0f} s: {cpu:.2f} % "
          f"(goal under 1 %: {met(cpu < 1)})")


if __name__ == "__main__":  # this section alone: python bench/display_bench.py
    import tempfile

    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        bench_display(Path(tmp))
