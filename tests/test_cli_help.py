"""The help of ``tablectl`` and ``table-controller``: every subcommand says what it does and
every option or argument what it takes (what ``--help`` shows a technician)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from controller.cli import tablectl
from controller.cli.compose import load_config
from controller.cli.main import build_parser
from controller.core import registry
from controller.core.config import DEFAULT_CONFIG, apply_overrides


def _commands(parser: argparse.ArgumentParser, name: str,
              ) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command, sub in action.choices.items():
                yield from _commands(sub, f"{name} {command}")


def _parsers() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield from _commands(build_parser(), "table-controller")
    base = load_config(DEFAULT_CONFIG)
    for game in registry.names():  # each game's bets add their own options to `bet`
        config = apply_overrides(base, {"table": game}, "test")
        yield from _commands(tablectl._parser(config), f"tablectl ({game})")


def test_every_subcommand_has_a_description_and_every_option_a_help() -> None:
    missing = []
    for name, parser in _parsers():
        if not parser.description:
            missing.append(f"{name}: no description")
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            if not action.help:
                missing.append(f"{name}: {'/'.join(action.option_strings) or action.dest}")
    assert missing == []


def _help(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as exit_:
        tablectl.main(list(argv))
    assert exit_.value.code == 0
    return capsys.readouterr().out


def test_seal_init_help_says_what_it_makes(capsys: pytest.CaptureFixture[str]) -> None:
    out = _help(capsys, "seal-init", "--help")
    assert "verification key is printed once" in " ".join(out.split())


def test_bet_help_explains_kind_box_and_amount(capsys: pytest.CaptureFixture[str]) -> None:
    out = _help(capsys, "bet", "--help")
    assert "the bet kind (below)" in out
    assert "--box BOX             the box (betting position), from 1" in out
    assert "--amount AMOUNT       whole chips" in out


def test_calibrate_help_gives_the_timeout_default_and_tablectl_options(
        capsys: pytest.CaptureFixture[str]) -> None:
    out = _help(capsys, "calibrate", "--help")
    assert "live: seconds to wait for the turns (default 180)" in out  # hardware.md
    for option in ("--config CONFIG", "--journal JOURNAL", "--json"):
        assert option in out
