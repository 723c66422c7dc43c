"""Long journals for the start-up figures of ``bench.py``, and the start measured in a child.

A journal of a million records is made by repeating the records of a replayed session
(its evidence batches with them), each copy renumbered (``seq``, batch numbers, times moved
on) and the whole rechained, so that the long journal and the short one end with the same
records after the same last checkpoint: what differs is only what comes before it.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from controller.store.chain import GENESIS, canonical, chain_hash
from controller.store.evidence import Batch


def tile(source: Path, target: Path, records: int) -> int:
    """Write at ``target`` copies of ``source``'s records until it holds at least
    ``records``; return how many it holds."""
    src = sqlite3.connect(source)
    rows = [json.loads(body) for (body,) in src.execute("SELECT body FROM records ORDER BY seq")]
    batches = src.execute("SELECT batch, seq, first_us, edges, inputs, data FROM evidence "
                          "ORDER BY batch").fetchall()
    schema = src.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL").fetchall()
    version = src.execute("PRAGMA user_version").fetchone()[0]
    src.close()
    span = rows[-1]["t"] - rows[0]["t"] + 1.0
    nbatch = max((b[0] for b in batches), default=0)
    target.unlink(missing_ok=True)
    db = sqlite3.connect(target, isolation_level=None)
    for (sql,) in schema:
        db.execute(sql)
    db.execute(f"PRAGMA user_version = {version}")
    db.execute("BEGIN")
    prev, seq, copy = GENESIS, 0, 0
    while seq < records:
        shift_t, shift_b = copy * span, copy * nbatch
        shas = {}
        for batch, bseq, first_us, edges, inputs, data in batches:
            moved = Batch(batch + shift_b, first_us + round(shift_t * 1e6), inputs, data, edges)
            shas[moved.batch] = moved.sha256
            db.execute("INSERT INTO evidence VALUES (?, ?, ?, ?, ?, ?)",
                       (moved.batch, bseq + seq, moved.first_us, edges, inputs, data))
        for rec in rows:
            rec = _moved(rec, seq, shift_t, shift_b, shas)
            body = canonical(rec)
            prev = chain_hash(prev, body)
            # The hash as the source's format stores it (raw bytes since format 3).
            db.execute("INSERT INTO records VALUES (?, ?, ?, ?, ?)",
                       (rec["seq"], rec["t"], rec["type"], body,
                        bytes.fromhex(prev) if version >= 3 else prev))
        seq += len(rows)
        copy += 1
    db.execute("COMMIT")
    db.execute("PRAGMA journal_mode=WAL")  # as the daemon's journal is
    db.close()
    return seq


def _moved(rec: dict[str, Any], shift_seq: int, shift_t: float, shift_b: int,
           shas: dict[int, str]) -> dict[str, Any]:
    rec = dict(rec)
    rec["seq"] += shift_seq
    rec["t"] = round(rec["t"] + shift_t, 6)
    ref = rec.get("evidence")
    if isinstance(ref, dict):
        batch = ref["batch"] + shift_b
        rec["evidence"] = {**ref, "batch": batch, "sha256": shas[batch]}
    if rec["type"] == "checkpoint" and rec.get("previous"):
        rec["previous"] += shift_seq
    return rec


_START_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
from controller.cli.daemon.run import start_table
from controller.core.clock import SystemClock
from controller.cli.compose import load_config
from controller.core.logs import configure, get_logger
from controller.store.journal import Journal
config = load_config(sys.argv[2])
configure("error")
def peak_mb():  # VmHWM: this process's peak (ru_maxrss would carry the parent's over exec)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
imported = time.perf_counter()
rss0 = peak_mb()
start = time.perf_counter()
journal = Journal(sys.argv[1], durable=True)
loop, table = start_table(config, journal, SystemClock(), get_logger())
ready = time.perf_counter() - start
journal.close()
print(json.dumps({"ready_s": ready, "imports_s": imported - t0,
                  "peak_mb": peak_mb(), "before_mb": rss0, "records": journal.last_seq}))
"""


def time_to_ready(journal: Path, config: str, runs: int = 5) -> dict[str, float]:
    """The daemon's start on a fresh copy of ``journal`` in a fresh process, ``runs`` times:
    the median seconds from opening the journal to ready (verified from its last
    checkpoint, recovered), and the process's peak resident memory (MB) then."""
    copy = journal.with_name(journal.stem + "-start.sqlite")
    found = []
    for _ in range(runs):
        shutil.copyfile(journal, copy)
        out = subprocess.run([sys.executable, "-c", _START_CHILD, str(copy), config],
                             capture_output=True, text=True, check=True).stdout
        found.append(json.loads(out.splitlines()[-1]))
    found.sort(key=lambda f: f["ready_s"])
    return found[len(found) // 2]  # type: ignore[no-any-return]


def index_check_cost(journal: Path, config: str, runs: int = 5) -> tuple[float, float]:
    """CPU seconds (the median of ``runs``) of the check of the type index every tool makes
    before it answers (:func:`controller.store.type_index.check_type_index`), and of
    ``tablectl status``'s own reading of ``journal`` after it."""
    import contextlib
    import io

    from controller.cli.compose import load_config
    from controller.cli.tablectl import status
    from controller.store.journal import Journal
    from controller.store.type_index import check_type_index

    table = load_config(config)
    found = []
    for _ in range(runs):
        with Journal(journal, readonly=True) as opened:
            began = time.process_time()
            check_type_index(opened)
            checked = time.process_time()
            with contextlib.redirect_stdout(io.StringIO()), \
                    contextlib.redirect_stderr(io.StringIO()):
                status.run(opened, table, False)
            found.append((checked - began, time.process_time() - checked))
    found.sort()
    return found[len(found) // 2]
