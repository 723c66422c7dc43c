"""Forward-secure sealing of the journal (the model: systemd-journald's Forward Secure Sealing).

``tablectl seal-init`` makes a random 32-byte key k(0), keeps it beside the journal (the key
file, mode 0600) and prints it once: the **verification key**, for the auditor to keep off
the machine. The daemon seals the journal at start, every ``seal_interval_s`` seconds and at
a clean stop: a ``seal`` record with ``mac`` = HMAC-SHA256(k(epoch), the seal's epoch, the
seq and hash of the record before it, its time and the interval promised). After each seal
the key evolves one way, k(i+1) = SHA-256(k(i)), and the key file is replaced (written,
fsync'd, renamed over the old one), so the machine never again holds a key that made an
earlier seal. Whoever gains the machine later holds k(i) for the next epoch only: a seal of
an earlier epoch cannot be made again, so records it covers cannot be rewritten or cut
without :func:`verify_seals` (given k(0)) saying so.

What the verifier checks: each seal's MAC with k(epoch) derived from k(0); that its
``head_hash`` is the chain's hash at ``head_seq``; epochs 0, 1, 2... with none missing;
the cadence: consecutive seals at most 1.5 intervals apart unless the daemon stopped or
started in between (a ``shutdown`` or ``startup`` record), and no record more than 1.5
intervals after the last seal
(or the last start after it); after a clean stop's seal only a ``startup`` may follow; and,
given ``until`` (a time the journal is known to reach), a last seal that recent. What it
cannot check (hardware.md §8): the records after the last seal (at most one interval; a cut
there looks like a power cut), nor a journal deleted whole.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.core.errors import JournalError
from controller.store.shared import Seal

if TYPE_CHECKING:
    from controller.store.journal import Journal

KEY_SUFFIX = ".sealkey"
CADENCE_SLACK = 1.5  # a seal may come this many intervals after the one before it


def key_path_for(journal_path: str | Path, configured: str = "") -> Path:
    """The key file: ``[journal] seal_key``, else the journal's path + ``.sealkey``."""
    return Path(configured) if configured else Path(str(journal_path) + KEY_SUFFIX)


def mac(key: bytes, epoch: int, head_seq: int, head_hash: str, sealed_at: float,
        interval_s: float) -> str:
    """The seal's HMAC-SHA256 (hex) under ``key`` (k(epoch))."""
    message = (f"table-controller seal 1\n{epoch}\n{head_seq}\n{head_hash}\n"
               f"{sealed_at!r}\n{interval_s!r}").encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def evolve(key: bytes) -> bytes:
    """k(i+1) from k(i): one way."""
    return hashlib.sha256(key).digest()


def parse_verification_key(text: str) -> bytes:
    """The auditor's k(0) from its 64 hex digits.

    Raises:
        ValueError: not 64 hex digits.
    """
    text = text.strip()
    if len(text) != 64:
        raise ValueError("a verification key is 64 hex digits")
    return bytes.fromhex(text)


class Sealer:
    """The daemon's sealing key (k(epoch) in the key file).

    Raises:
        JournalError: the key file cannot be read or is not a key file.
    """

    def __init__(self, path: Path, interval_s: float) -> None:
        self.path = path
        self.interval_s = float(interval_s)
        try:
            data = json.loads(path.read_text(encoding="ascii"))
            self.epoch = int(data["epoch"])
            self.key = bytes.fromhex(data["key"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise JournalError(f"{path}: not a usable sealing key ({exc})") from exc
        if len(self.key) != 32 or self.epoch < 0:
            raise JournalError(f"{path}: not a usable sealing key")

    @classmethod
    def load(cls, path: Path, interval_s: float) -> Sealer | None:
        """The sealer of the key file at ``path``, None when there is no key file."""
        return cls(path, interval_s) if path.exists() else None

    def seal(self, head_seq: int, head_hash: str, sealed_at: float) -> Seal:
        """The ``seal`` record of the journal up to ``head_seq``."""
        at = round(sealed_at, 6)
        return Seal(epoch=self.epoch, head_seq=head_seq, head_hash=head_hash, sealed_at=at,
                    interval_s=self.interval_s,
                    mac=mac(self.key, self.epoch, head_seq, head_hash, at, self.interval_s))

    def advance(self, past_epoch: int | None = None) -> None:
        """Evolve the key once (the seal of this epoch is committed), or until its epoch
        is after ``past_epoch`` (the journal's last seal, after a crash between a seal's
        commit and the key's evolution). The old key file is replaced, never kept."""
        target = self.epoch + 1 if past_epoch is None else max(self.epoch, past_epoch + 1)
        if target == self.epoch:
            return
        key = self.key
        for _ in range(target - self.epoch):
            key = evolve(key)
        write_key(self.path, target, key)
        self.epoch, self.key = target, key


def write_key(path: Path, epoch: int, key: bytes, *, new: bool = False) -> None:
    """Write the key file (mode 0600): to a temporary file, fsync'd, renamed over the old
    one, the folder fsync'd. With ``new`` the file must not exist yet.

    Raises:
        JournalError: it exists (``new``) or cannot be written.
    """
    text = json.dumps({"epoch": epoch, "key": key.hex()})
    tmp = path.with_name(path.name + ".tmp")
    try:
        if new and path.exists():
            raise JournalError(f"{path}: a sealing key is already there; its verification "
                               "key was printed when it was made")
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, text.encode("ascii"))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
    except OSError as exc:
        raise JournalError(f"{path}: cannot write the sealing key: {exc}") from exc


def make_key(path: Path) -> str:
    """Make k(0) at ``path`` (epoch 0); return the verification key (hex), shown once.

    Raises:
        JournalError: a key is already there, or it cannot be written.
    """
    key = secrets.token_bytes(32)
    write_key(path, 0, key, new=True)
    return key.hex()


@dataclass
class SealReport:
    """What :func:`verify_seals` found: ``problems`` (each a line; none: the seals hold)
    and ``notes`` (what the seals cannot vouch for)."""

    seals: int = 0
    last_epoch: int | None = None
    last_sealed_at: float | None = None
    unsealed: int = 0
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def verify_seals(journal: Journal, key0: bytes | None, until: float | None = None,
                 key_epoch: int | None = None) -> SealReport:
    """Check every seal of ``journal`` (see the module doc); without ``key0`` only what
    needs no key (head hashes, epochs, cadence). ``key_epoch``, the epoch of the key file
    beside the journal (not a secret), tells how many seals were made: more than the
    journal holds means its tail was cut. The hash chain is checked apart
    (:func:`controller.store.verify.check_chain`)."""
    report = SealReport()
    keys: dict[int, bytes] = {}
    if key0 is not None:
        keys[0] = key0
    last: dict[str, Any] | None = None
    restarted_at: float | None = None  # a startup after the last seal
    stopped = False  # the last seal followed a clean stop
    # What the records after the last seal tell, kept as they stream by (the journal is
    # never held: months of records): how many, whether one is a clean stop, and the
    # first one later than the daemon's cadence allows after the last seal or restart.
    after = _AfterSeal()
    for seq, _type, body in journal.bodies():
        try:
            rec = json.loads(body)
        except ValueError:  # the chain check names it
            continue
        if not isinstance(rec, dict):
            continue
        kind = rec.get("type")
        if kind != "seal":
            if kind == "startup":
                restarted_at = rec["t"]
            elif stopped and not restarted_at:
                report.problems.append(f"record {seq} ({kind}) follows the seal of a clean "
                                       "stop: only a startup may")
                stopped = False
            after.add(rec, restarted_at, last)
            continue
        stopped = after.shutdown
        _check_seal(journal, rec, last, restarted_at is not None or stopped, keys, report)
        last, restarted_at, after = rec, None, _AfterSeal()
        report.seals += 1
    made = -1 if last is None else last["epoch"]
    if key_epoch is not None and key_epoch > made + 1:
        report.problems.append(
            f"the sealing key beside the journal is at epoch {key_epoch}: seals up to epoch "
            f"{key_epoch - 1} were made, the journal's last is {made if made >= 0 else 'none'}: "
            "its tail was cut")
    if last is None:
        report.problems.append("no seal in the journal")
        return report
    report.last_epoch, report.last_sealed_at = last["epoch"], last["sealed_at"]
    report.unsealed = after.count
    limit = CADENCE_SLACK * float(last["interval_s"])
    since = restarted_at if restarted_at is not None else last["sealed_at"]
    if after.late is not None:
        late_seq, late_t = after.late
        report.problems.append(
            f"record {late_seq} is {late_t - since:.0f} s after the last seal "
            f"(epoch {last['epoch']}) with no seal since: the daemon seals every "
            f"{last['interval_s']:g} s; records were added after it stopped sealing")
    if until is not None and not stopped and last["sealed_at"] < until - limit:
        report.problems.append(
            f"the last seal (epoch {last['epoch']}) is {until - last['sealed_at']:.0f} s before "
            f"{until:.0f} and no clean stop was sealed: the journal was cut, or the daemon "
            "stopped without one")
    if after.count:
        report.notes.append(f"{after.count} records after the last seal are not sealed "
                            "(a seal vouches only for what comes before it)")
    return report


class _AfterSeal:
    """The records after the last seal, as they stream by: their ``count``, whether one is
    a ``shutdown``, and the first (seq, t) ``late`` past the cadence after the seal or the
    last restart (times never go back, so a restart forgets an earlier late one)."""

    def __init__(self) -> None:
        self.count = 0
        self.shutdown = False
        self.late: tuple[int, float] | None = None

    def add(self, rec: dict[str, Any], restarted_at: float | None,
            last: dict[str, Any] | None) -> None:
        self.count += 1
        kind = rec.get("type")
        self.shutdown = self.shutdown or kind == "shutdown"
        if kind == "startup":
            self.late = None
        if last is None or self.late is not None:
            return
        since = restarted_at if restarted_at is not None else last["sealed_at"]
        if rec["t"] > since + CADENCE_SLACK * float(last["interval_s"]):
            self.late = (rec["seq"], rec["t"])


def _check_seal(journal: Journal, rec: dict[str, Any], last: dict[str, Any] | None,
                off_cadence: bool, keys: dict[int, bytes], report: SealReport) -> None:
    """One seal; ``off_cadence``: a start or a clean stop came since the last one (the
    seal that follows them is not due at the cadence)."""
    seq, epoch = rec["seq"], rec.get("epoch")
    want_epoch = 0 if last is None else last["epoch"] + 1
    if epoch != want_epoch:
        report.problems.append(f"seal {seq}: epoch {epoch}, expected {want_epoch}: seals "
                               "are missing or were made again")
    if rec.get("head_seq") != seq - 1 or journal.hash_of(seq - 1) != rec.get("head_hash"):
        report.problems.append(f"seal {seq}: the records it sealed were changed (its head "
                               "hash is not the chain's)")
    if last is not None and not off_cadence:
        gap = rec["sealed_at"] - last["sealed_at"]
        if gap > CADENCE_SLACK * float(last["interval_s"]):
            report.problems.append(f"seal {seq}: {gap:.0f} s after the one before with no "
                                   f"restart between (cadence {last['interval_s']:g} s): "
                                   "seals were removed")
    if keys and isinstance(epoch, int) and epoch >= 0:
        top = max(keys)
        key = keys[top]
        for e in range(top + 1, epoch + 1):
            key = keys[e] = evolve(key)
        want = mac(keys[epoch], epoch, rec.get("head_seq", -1), str(rec.get("head_hash")),
                   rec["sealed_at"], rec["interval_s"])
        if not hmac.compare_digest(want, str(rec.get("mac"))):
            report.problems.append(f"seal {seq} (epoch {epoch}): its MAC is not the "
                                   "verification key's: forged or rewritten")
