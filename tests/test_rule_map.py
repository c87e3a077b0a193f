"""The rule map (docs/rules/README.md) covers every setting each preset sets, and every test
it names exists (issue 38: so that the next pass finds nothing unmapped)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PRESETS_DIR = ROOT / "pipeline" / "rulesets"
MAP = (ROOT / "docs" / "rules" / "README.md").read_text(encoding="utf-8")


def _sections() -> dict[str, str]:
    """Each `## ` section's heading → its text."""
    parts = re.split(r"^## ", MAP, flags=re.M)[1:]
    return {part.splitlines()[0]: part for part in parts}


def _settings(table: dict, prefix: str = "") -> list[str]:
    """The dotted names of every setting a preset file sets."""
    found = []
    for key, value in table.items():
        if isinstance(value, dict):
            found += _settings(value, f"{prefix}{key}.")
        elif key != "description":
            found.append(f"{prefix}{key}")
    return found


PRESETS = sorted(p.stem for p in PRESETS_DIR.glob("*.toml"))


@pytest.mark.parametrize("preset", PRESETS)
def test_every_setting_of_a_preset_is_in_its_section(preset):
    sections = [text for heading, text in _sections().items() if f"`{preset}`" in heading]
    assert sections, f"docs/rules/README.md has no section for {preset}"
    text = "\n".join(sections)
    settings = _settings(tomllib.loads((PRESETS_DIR / f"{preset}.toml").read_text("utf-8")))
    missing = [s for s in settings if not re.search(rf"`{re.escape(s)}(`| =)", text)]
    assert not missing, f"{preset}: settings not in the rule map: {missing}"


def test_every_test_the_map_names_exists():
    named = set(re.findall(r"(tests/[\w/]+\.py)::(test_\w+)", MAP))
    assert len(named) >= 40
    for path, name in sorted(named):
        source = ROOT / path
        assert source.is_file(), path
        assert re.search(rf"^def {name}\(", source.read_text(encoding="utf-8"), re.M), \
            f"{path}::{name} does not exist"


def test_every_row_names_a_test():
    rows = [line for line in MAP.splitlines() if line.startswith("| ") and "---" not in line
            and not line.startswith("| 通知原文")]
    assert rows and all(re.search(r"tests/[\w/]+\.py::test_\w+ \|$", r) for r in rows), \
        [r for r in rows if not re.search(r"tests/[\w/]+\.py::test_\w+ \|$", r)]
