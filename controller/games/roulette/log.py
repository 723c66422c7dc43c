"""How a roulette table's records read in the daemon's console log (seed 001): one short
line each, in words (``GameSpec.log_words``): a spin's start, its result as measured, an
invalid or held spin with each reason once (Art. 12), and a bet's numbers, column or dozen
wherever a bet is said (an accepted bet, its settlement, an alarm that refuses it)."""

from __future__ import annotations

from functools import partial
from typing import Any

from controller.core import logs


def bet(e: dict[str, Any]) -> str:
    """``box 4 dozen 2`` / ``box 2 straight 17`` / ``box 1 red``: the bet's box and kind,
    then its column or dozen (``which``) or its numbers (Art. 13)."""
    extra = ""
    if e.get("which") is not None:
        extra = f" {e['which']}"
    elif e.get("numbers") is not None:
        extra = " " + "/".join(str(n) for n in e["numbers"])
    return f"box {e['box']} {e['kind']}{extra}"


def spin_start(e: dict[str, Any]) -> str:
    """``spin 12: ball launched, 3 bets, limits 1–1000 chips``."""
    bets = e.get("bets", 0)
    return (f"spin {e['spin']}: ball launched, {bets} bet{'' if bets == 1 else 's'}, "
            f"{logs.limits(e)}")


def spin_result(e: dict[str, Any]) -> str:
    """What was measured of it; a wheel that reports no ball revolutions or direction
    (a serial wheel without extended lines) has none said."""
    ball = " ".join(part for part in (
        f"{e['ball_revolutions']} ball revolution{'' if e['ball_revolutions'] == 1 else 's'}"
        if e.get("ball_revolutions") is not None
        else "", e.get("ball_direction") or "") if part)
    rotor = " ".join(["rotor", *([e["rotor_direction"]] if e.get("rotor_direction") else []),
                      *([f"at {e['rotor_rpm']} rpm"] if e.get("rotor_rpm") is not None else [])])
    return ", ".join([f"spin {e['spin']}: {e['number']}", *([ball] if ball else []),
                      *([rotor] if rotor != "rotor" else [])])


def _reasons(e: dict[str, Any]) -> str:
    """Each reason once, with its details' words when it has them."""
    details = e.get("details") or {}
    names = dict.fromkeys([*([e["reason"]] if e.get("reason") else []),
                           *(e.get("reasons") or []), *details])
    return "; ".join(f"{n}: {details[n]}" if n in details else str(n) for n in names)


def spin_invalid(e: dict[str, Any]) -> str:
    """``spin 12 INVALID: too_few_revolutions: 2 ball revolutions, fewer than 3`` (Art. 12)."""
    return f"spin {e['spin']} INVALID: {_reasons(e)}"


def spin_held(e: dict[str, Any]) -> str:
    """``spin 12 HELD for the inspector: ...; the sensors point to 17``."""
    # A serial wheel's lines that disagree give candidates, none of them the one.
    seen = e.get("candidate") or " or ".join(e.get("candidates") or []) or "no pocket read"
    return (f"spin {e['spin']} HELD for the inspector: {_reasons(e)}; the sensors point to "
            f"{seen}")


_BET = ("box", "kind", "which", "numbers", "amount")
WORDS: dict[str, logs.LineWords] = {
    "spin_start": (spin_start, ("spin", "bets", "limits")),
    "spin_result": (spin_result, ("spin", "number", "ball_revolutions", "ball_direction",
                                  "rotor_direction", "rotor_rpm")),
    "spin_invalid": (spin_invalid, ("spin", "reason", "reasons", "details",
                                    "ball_revolutions")),
    "spin_held": (spin_held, ("spin", "reason", "reasons", "details", "candidate")),
    "bet": (partial(logs.bet_accepted, bet=bet), (*_BET, "game")),
    "settlement": (partial(logs.settlement, bet=bet), (*_BET, "outcome", "payout", "game")),
    "alarm": (partial(logs.alarm, bet=bet), logs.SAID["alarm"]),
}
"""The console's words for a roulette table's records (the others: the kernel's, or field
by field); each with the fields it says, the rest follow as ``key=value``."""
