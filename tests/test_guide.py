"""The organizer's guide (docs/guide) cannot drift from the program: every picture it shows is
taken by a test, every template it links is what `paisai template` writes today, every
command it gives parses with its options, every error message it quotes is in the code."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import click
import pytest
from python_calamine import CalamineWorkbook

from pipeline.cli import build
from pipeline.publishing.export.template import KINDS, export_template

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "guide"
TEXT = (GUIDE / "README.md").read_text(encoding="utf-8")
TEMPLATE_EVENT = "（赛事名称）"


def test_readme_links_the_guide():
    assert "docs/guide/README.md" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_picture_is_taken_by_a_test():
    shown = set(re.findall(r"\]\(img/([\w-]+)\.png\)", TEXT))
    assert len(shown) >= 10
    sources = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("*.py"))
    taken = set(re.findall(r'guide_(?:shot|image)\(.*?, *"([\w-]+)"', sources))
    assert shown <= taken, f"pictures no test takes: {sorted(shown - taken)}"
    missing = [n for n in shown if not (GUIDE / "img" / f"{n}.png").is_file()]
    assert not missing, f"run `make guide` to take them: {missing}"


def _cells(path: Path) -> list[list]:
    return CalamineWorkbook.from_path(str(path)).get_sheet_by_index(0).to_python()


def test_templates_are_what_paisai_writes_today(tmp_path):
    linked = set(re.findall(r"\]\(templates/(\w+)\.xlsx\)", TEXT))
    assert linked == set(KINDS)  # every kind, once each
    for kind in KINDS:
        fresh = tmp_path / f"{kind}.xlsx"
        export_template(kind, TEMPLATE_EVENT, fresh)
        kept = GUIDE / "templates" / f"{kind}.xlsx"
        if os.environ.get("PAISAI_GUIDE_SHOTS") and (  # `make guide` writes changed ones
                not kept.is_file() or _cells(kept) != _cells(fresh)):
            kept.parent.mkdir(parents=True, exist_ok=True)
            export_template(kind, TEMPLATE_EVENT, kept)
        assert kept.is_file(), f"run `make guide`: {kept}"
        assert _cells(kept) == _cells(fresh), f"{kept} is stale: run `make guide`"


def _commands() -> list[list[str]]:
    blocks = re.findall(r"```bash\n(.*?)```", TEXT, flags=re.S)
    lines = [line.strip() for block in blocks for line in block.splitlines()]
    return [shlex.split(line)[1:] for line in lines if line.startswith("paisai ")]


COMMANDS = _commands()


def test_the_guide_gives_commands():
    assert len(COMMANDS) >= 30


@pytest.mark.parametrize("words", COMMANDS, ids=[" ".join(w[:2]) for w in COMMANDS])
def test_every_command_and_option_exists(words):
    command: click.Command = build()
    rest = list(words)
    while isinstance(command, click.Group) and rest and not rest[0].startswith("-"):
        found = command.get_command(click.Context(command), rest[0])
        if found is None:
            break
        command, rest = found, rest[1:]
    assert not isinstance(command, click.Group) or not rest or rest[0].startswith("-") or \
        command.name == "bracket", f"no such command: paisai {' '.join(words)}"
    known = {opt for p in command.params for opt in p.opts}
    for word in rest:
        if word.startswith("--"):
            assert word.split("=")[0] in known, f"paisai {' '.join(words)}: no option {word}"
    # and the line parses: required options given, arguments in place
    command.make_context("paisai", rest, resilient_parsing=False)


def test_every_quoted_message_is_in_the_code():
    section = TEXT.split("## 10.", 1)[1]
    quoted = [row.split("|")[1].strip().strip("`") for row in section.splitlines()
              if row.startswith("| `")]
    assert len(quoted) >= 10
    code = "\n".join(p.read_text(encoding="utf-8") for folder in ("pipeline", "schemas",
                                                                   "dashboard")
                     for p in (ROOT / folder).rglob("*.py"))
    missing = [q for q in quoted if q not in code]
    assert not missing, f"messages the program no longer gives: {missing}"
