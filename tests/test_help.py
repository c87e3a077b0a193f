"""Every command explains itself (sqlite-utils' habit): `--help` works through the real entry
point for every command and subcommand and lists each of its options and arguments."""

from __future__ import annotations

import click
import pytest

from pipeline.cli import build, main


def _commands(group: click.Group, path: tuple[str, ...] = ()):
    for name, command in sorted(group.commands.items()):
        yield (*path, name), command
        if isinstance(command, click.Group):
            yield from _commands(command, (*path, name))


COMMANDS = list(_commands(build()))


def test_the_documented_commands_are_all_there():
    names = {" ".join(path) for path, _ in COMMANDS}
    assert {"event create", "event close", "events", "rulesets", "ingest", "standings",
            "rounds", "pair", "export pairings", "export scoresheet", "awards", "meet create",
            "meet add", "meet standings", "draw", "checkin", "withdraw", "reinstate",
            "clock start", "clock add-minutes", "clock status", "late", "bracket",
            "bracket draw", "bracket next", "import-event", "players", "player", "ratings",
            "units", "compare", "uploads", "backup", "restore", "check", "watch", "publish",
            "simulate", "dashboard", "demo", "results delete"} <= names


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[" ".join(p) for p, _ in COMMANDS])
def test_help_lists_every_option(path, command, capsys):
    assert main([*path, "--help"]) == 0
    shown = capsys.readouterr().out
    assert command.help and command.help.split()[0] in shown
    for param in command.params:
        if isinstance(param, click.Option):
            assert any(opt in shown for opt in param.opts), (path, param.opts)
        else:
            pieces = param.get_usage_pieces(click.Context(command))
            assert all(piece in shown for piece in pieces), (path, param.name)
    if not isinstance(command, click.Group):
        assert "--db" in shown and "--debug" in shown


def test_no_command_prints_the_overview(capsys):
    assert main([]) == 0
    assert "ingest" in capsys.readouterr().out


def test_a_wrong_option_is_a_usage_error(capsys):
    assert main(["standings", "--evnt", "x"]) == 2
    assert "--evnt" in capsys.readouterr().err


def test_each_command_is_found_in_its_area():
    """The root group imports a command's area alone (a fast start): WHERE must name the
    area of every command each area lists, and no other."""
    from pipeline.commands import AREAS, WHERE, area

    listed = {c.name: name for name in AREAS for c in area(name).COMMANDS}
    assert listed == WHERE
