"""Break one rule at a time and see which article tests catch it (run by hand, not in CI).

Each mutation below changes a few characters of the controller's source so that one rule
of a seed is gone (insurance also winning on a nine, the shuffle after the cut card made
optional...). The script applies them one at a time to this checkout, runs the article
files of the seeds the rule belongs to in a fresh pytest process, puts the source back
(also on Ctrl-C or an error), and reports, for each mutation, the tests that failed and
whether the rule's own article caught it: a test of that seed's files whose name cites the
article (README.md here). An article whose tests still pass with its rule broken would
show PASS in ``make audit`` with the rule gone.

Usage::

    .venv/bin/python tests/articles/mutations.py            # every mutation (a few minutes)
    .venv/bin/python tests/articles/mutations.py NAME ...   # those named
    .venv/bin/python tests/articles/mutations.py --list

Exit 0 when every mutation was caught by its own article's tests, 1 otherwise, 2 for an
unknown name or a mutation whose text is no longer in its file (the code moved: update the
mutation). It writes to the source files while it runs: do not run it on a checkout you
are editing.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))

from audit import NamingError, cited_ids  # noqa: E402  (this folder, not a package)


@dataclass(frozen=True)
class Mutation:
    """One rule broken: ``old`` (found exactly once in ``path``) becomes ``new``; it must
    be caught under each (seed, article id) of ``articles``."""

    name: str
    rule: str
    path: str
    old: str
    new: str
    articles: tuple[tuple[str, str], ...]


BJ_CUT_CARD = 'Step("scramble", mandatory=False), Step("shuffle"), Step("cut"),'
SHOE = "controller/cards/shoe_reader.py"
COUNT_OUT = "controller/cards/count_out.py"
NOT_LOADED = '''        if not self._loaded:
            self._alarm(t, CardAlarm(code="card_before_ready", message=f"{what} read before "'''

MUTATIONS = (
    Mutation("insurance_wins_on_a_nine", "insurance pays on a figure or a ten only",
             "controller/games/blackjack/rules.py", "return value(hole_card) == 10",
             "return value(hole_card) >= 9", (("002", "10"),)),
    Mutation("shuffle_optional_after_the_cut_card", "Black Jack: shuffle after the cut card",
             "controller/games/blackjack/shoe.py", BJ_CUT_CARD,
             BJ_CUT_CARD.replace('Step("shuffle")', 'Step("shuffle", mandatory=False)'),
             (("002", "6a"), ("004", "6a"))),
    Mutation("mini_baccarat_shuffle_optional_after_the_cut_card",
             "Mini-Bacará's sabot: shuffle after the cut card",
             "controller/games/mini_baccarat/shoe.py", BJ_CUT_CARD,
             BJ_CUT_CARD.replace('Step("shuffle")', 'Step("shuffle", mandatory=False)'),
             (("000", "2"),)),
    Mutation("burn_optional_after_the_cut_card", "Black Jack: burn after the cut card",
             "controller/games/blackjack/shoe.py",
             BJ_CUT_CARD + '\n        Step("load", loads=True), Step("burn", read=True),',
             BJ_CUT_CARD + '\n        Step("load", loads=True), Step("burn", read=True, '
             "mandatory=False),", (("002", "6d"), ("004", "6d"))),
    Mutation("cut_card_under_40_accepted", "the cut card at least 40 cards from the bottom",
             SHOE, "late = self.cards_left < self.cut_card_min_remaining", "late = False",
             (("002", "5e"), ("004", "5e"))),
    Mutation("cards_before_the_load_counted", "the cards count from the load on", SHOE,
             NOT_LOADED, NOT_LOADED.replace("if not self._loaded:\n",
                                            "if not self._loaded:\n"
                                            "            self._counts[card] += 1\n"),
             (("002", "5f"), ("004", "5f"))),
    Mutation("load_check_removed", "no card is dealt or burnt before the load", SHOE,
             NOT_LOADED, NOT_LOADED.replace("if not self._loaded:", "if False:"),
             (("002", "5f"), ("004", "5f"))),
    Mutation("double_on_three_cards", "a hand doubles on its first two cards (RULES §4)",
             "controller/games/blackjack/rules.py", "if len(cards) != 2:\n        return "
             '"a hand doubles', 'if len(cards) > 3:\n        return "a hand doubles',
             (("002", "8"),)),
    Mutation("split_twice", "a box splits once (RULES §4)",
             "controller/games/blackjack/checks.py", "if self._box(box).split:",
             "if False:", (("002", "8"),)),
    Mutation("no_insurance_question", "decisions only after the insurance question closes",
             "controller/games/blackjack/chart.py", "coup.insurance_open = True",
             "coup.insurance_open = False", (("002", "10"),)),
    Mutation("up_card_turned_late", "the up card turned when the deal ends",
             "controller/games/blackjack/chart.py",
             "self.turn_up_card(0)  # the deal ends", "pass  # the deal ends",
             (("002", "8"),)),
    Mutation("first_card_shown_before_exposure", "a card face down never shown before its "
             "turn", "controller/games/blackjack/chart.py", "self._held_turn = []",
             "self._held_turn = None", (("002", "8"),)),
    Mutation("insurance_question_not_journaled", "the players are asked for insurance: "
             "the insurance_offered record", "controller/games/blackjack/chart.py",
             "self._turn_record(InsuranceOffered(coup=coup.number, boxes=offers))", "pass",
             (("002", "10"),)),
    Mutation("boxes_act_in_any_order", "the boxes act in box order (RULES §4)",
             "controller/games/blackjack/checks.py", "if hand.box != box:", "if False:",
             (("002", "8"),)),
    Mutation("surrender_after_its_card", "no surrender once the box's card is dealt",
             "controller/games/blackjack/checks.py", "if self.coup.card_waits:",
             "if False:", (("002", "9"),)),
    Mutation("settled_without_the_card_read", "nothing settled while a card read has no "
             "place", "controller/games/blackjack/chart.py",
             'dealer_turn.to(coup_over, unless=["dealer_must_draw", "card_held"])',
             'dealer_turn.to(coup_over, unless="dealer_must_draw")', (("002", "8"),)),
    Mutation("surrender_closed_by_another_box", "a box surrenders until its own first "
             "decision", "controller/games/blackjack/checks.py", "if found.acted:",
             "if self.coup.acted:", (("002", "9"),)),
    Mutation("limits_changed_unannounced", "players told before a limits change",
             "controller/games/roulette/game.py", "self.emit(LimitsAnnounced(",
             "(LimitsAnnounced(", (("001", "16"),)),
    Mutation("consent_not_checked", "a bet on another's box needs its holder's consent",
             "controller/cards/consent.py", "    if authorized is not True:",
             "    if False:", (("000", "4"), ("000", "5"), ("002", "7"), ("004", "7"))),
    Mutation("standing_on_an_empty_box", "a standing player only adds to a box's bets",
             "controller/cards/consent.py", 'if by != "standing" or bet.kind in box_kinds:',
             'if by != "standing" or not box_kinds or bet.kind in box_kinds:',
             (("000", "5"), ("002", "7"))),
    Mutation("standing_opens_a_bet_of_his_own", "a standing player adds to the bets that "
             "exist", "controller/cards/consent.py",
             'if by != "standing" or bet.kind in box_kinds:',
             'if by != "standing" or box_kinds:', (("000", "5"), ("004", "7"))),
    Mutation("cut_not_offered", "the cut is offered before each hand",
             "controller/games/draw_poker/shoe.py", 'Step("cut", by=CUT_BY)',
             'Step("cut", mandatory=False, by=CUT_BY)', (("003", "2"),)),
    Mutation("later_bets_unlimited", "the later bets within the house's limits",
             "controller/games/draw_poker/betting.py", "if self.later is not None:",
             "if False:", (("003", "21"),)),
    Mutation("missing_cards_not_alarmed", "a card never seen by the count-out is an alarm",
             COUNT_OUT, "self.short = missing_cards(counts, self.rules.decks)",
             "self.short = []", (("002", "4"), ("004", "4"), ("000", "2"))),
    Mutation("no_count_out_at_the_close", "the shoe's cards are counted out at its close",
             COUNT_OUT, 'self.due = reason == "cut_card" and self.rules.count_out',
             "self.due = False", (("002", "4"), ("004", "4"))),
    Mutation("short_decks_shuffled_again", "short decks are changed, not shuffled again",
             COUNT_OUT, "        if self.short:\n            raise RuleViolation(",
             "        if False:\n            raise RuleViolation(", (("002", "4"), ("004", "4"))),
    Mutation("count_out_over_count_accepted", "a card counted out beyond the decks is an "
             "alarm", SHOE,
             "        if self._over_count(t, card, what, burn):\n            return\n",
             "        if False:\n            return\n", (("002", "4"),)),
    Mutation("pot_luck_surrender_on_by_default", "seed 004 has no surrender",
             "controller/games/blackjack/config.py", "surrender=not pot_luck",
             "surrender=True", (("004", "8"),)),
    Mutation("pot_luck_insurance_on_by_default", "seed 004 has no insurance",
             "controller/games/blackjack/config.py", "insurance=not pot_luck",
             "insurance=True", (("004", "8"),)),
)


def article_files(seed: str) -> list[str]:
    return sorted(str(p.relative_to(REPO)) for p in HERE.glob(f"test_seed_{seed}_*.py"))


def failed_tests(files: list[str]) -> list[str]:
    """The node ids of the tests of ``files`` that failed or errored, in a fresh pytest."""
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-rfE", "--tb=no", *files], cwd=REPO,
                          capture_output=True, text=True, check=False)
    return re.findall(r"^(?:FAILED|ERROR) (\S+)", proc.stdout, flags=re.MULTILINE)


def prefix_of(seed: str) -> str:
    return "num" if seed == "003" else "art"


def caught_under(failed: list[str], seed: str, article: str) -> list[str]:
    """The failed tests of ``seed``'s files whose names cite ``article``."""
    found = []
    for nodeid in failed:
        file_part, _, name = nodeid.partition("::")
        if not Path(file_part).name.startswith(f"test_seed_{seed}_"):
            continue
        try:
            ids = cited_ids(name, prefix_of(seed))
        except NamingError:
            continue
        if article in ids:
            found.append(name)
    return found


def run(mutation: Mutation) -> bool:
    """Apply ``mutation``, run its seeds' article files, restore; report; True if caught."""
    path = REPO / mutation.path
    original = path.read_text(encoding="utf-8")
    if original.count(mutation.old) != 1:
        raise LookupError(f"{mutation.path}: the text of mutation {mutation.name} is found "
                          f"{original.count(mutation.old)} times, not once")
    files = [f for seed in dict.fromkeys(s for s, _ in mutation.articles)
             for f in article_files(seed)]
    try:
        path.write_text(original.replace(mutation.old, mutation.new), encoding="utf-8")
        failed = failed_tests(files)
    finally:
        path.write_text(original, encoding="utf-8")
    print(f"{mutation.name}: {mutation.rule} ({mutation.path})")
    ok = True
    for seed, article in mutation.articles:
        names = caught_under(failed, seed, article)
        ok = ok and bool(names)
        verdict = f"caught by {len(names)}" if names else "SURVIVES its article's tests"
        print(f"  seed {seed} {article}: {verdict}")
        for name in names:
            print(f"    {name}")
    others = [n for n in failed if n.partition("::")[2] not in
              {x for s, a in mutation.articles for x in caught_under(failed, s, a)}]
    if others:
        print(f"  also failed: {', '.join(n.partition('::')[2] for n in others)}")
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mutations", description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help="mutations to try (default: all)")
    parser.add_argument("--list", action="store_true", help="list the mutations")
    args = parser.parse_args(argv)
    if args.list:
        for m in MUTATIONS:
            print(f"{m.name}: {m.rule}")
        return 0
    by_name = {m.name: m for m in MUTATIONS}
    unknown = [n for n in args.names if n not in by_name]
    if unknown:
        print(f"mutations: unknown mutation {', '.join(unknown)} (--list)", file=sys.stderr)
        return 2
    chosen = [by_name[n] for n in args.names] or list(MUTATIONS)
    try:
        results = [run(m) for m in chosen]
    except LookupError as exc:
        print(f"mutations: {exc}", file=sys.stderr)
        return 2
    survived = [m.name for m, ok in zip(chosen, results, strict=True) if not ok]
    print(f"{len(chosen) - len(survived)} of {len(chosen)} mutations caught by their "
          "article's tests" + (f"; surviving: {', '.join(survived)}" if survived else ""))
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
