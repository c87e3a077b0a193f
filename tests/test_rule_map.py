"""The rule map (docs/rules/README.md) covers every setting each preset sets, and every test
it names exists (issue 38: so that the next pass finds nothing unmapped)."""

from __future__ import annotations

import os
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


# -- every notice sentence that names something computed has a row --------------------------

# words that name something paisai computes or records: levels gained, a ruled loss, a
# forfeit, points, places and prizes, warnings and violations, lateness, the clock
COMPUTED = re.compile(
    r"升級|升级|公升級|判負|判负|棄權|弃权|積分|积分|名次|獎|奖|違例|违例|警告|遲到|迟到|上臺|上台|"
    r"級差|级差|淘汰|輪空|轮空|停賽|停赛|扣\d|扣罰|扣罚|連升|连升|\d+分鐘|\d+分钟|每輪|每轮|排名|"
    r"勝負|胜负|勝方|胜方|領先|领先|犯規|犯规")
PINYIN = re.compile(r"\([a-zāáǎàēéěèīíǐìōóǒòūúǔùǖǘǚǜü?\s]+\)")  # seed 000's reading aids
NOTICES = Path(os.environ.get("PAISAI_NOTICES", ROOT.parent / "shared" / "seeds"))


def _plain(text: str) -> str:
    return re.sub(r"\s+", "", PINYIN.sub("", text))


def _quoted(rule_map: str) -> list[str]:
    """The notice's words the map quotes, cut at "…" and "；" into pieces of 4 characters or
    more (a row may quote several sentences, or the two ends of one)."""
    pieces = []
    for quote in re.findall(r'"([^"]+)"', rule_map):
        pieces += [p for p in re.split(r"…|；|;", _plain(quote)) if len(p) >= 4]
    return pieces


def unmapped(notice: str, rule_map: str) -> list[str]:
    """The sentences of a notice that name something computed and that no row of the map
    quotes. Headings (ending in a colon), a day's timetable and short labels are not
    sentences.

    >>> unmapped("胜方得3分。比赛时间到，领先者胜。", '"胜方得3分"')
    ['比赛时间到，领先者胜']
    """
    quoted = _quoted(rule_map)
    sentences = [_plain(s) for s in re.split(r"[。；！？\n]", notice)]
    return [s for s in sentences
            if len(s) >= 8 and not s.endswith(("：", ":")) and not re.search(r"\d{1,2}:\d{2}", s)
            and COMPUTED.search(s) and not any(piece in s for piece in quoted)]


def test_a_computed_sentence_without_a_row_is_found():
    """The check itself, on words of seed 004: a sentence with no row is named; quoted, it
    is not (a test that cannot fail would prove nothing)."""
    notice = "第一排序：胜利方得3分，平局得1分，失败方得0分。A必打，不能通过升级跳过A。\n升级："
    assert unmapped(notice, '"第一排序：胜利方得3分，平局得1分，失败方得0分"') == [
        "A必打，不能通过升级跳过A"]
    assert unmapped(notice, '"第一排序：胜利方得3分…"; "A必打，不能通过升级跳过A"') == []


@pytest.mark.skipif(not NOTICES.is_dir(), reason="the five notices are not beside the "
                    "repository (set PAISAI_NOTICES to their folder)")
def test_every_computed_sentence_of_the_notices_has_a_row():
    """Issue 50: every sentence of the five notices that names something computed has a row
    in docs/rules/README.md — what computes it, or why nothing does."""
    missing = {path.name[:3]: unmapped(path.read_text(encoding="utf-8"), MAP)
               for path in sorted(NOTICES.glob("*.txt"))}
    assert len(missing) == 5
    assert not any(missing.values()), {k: v for k, v in missing.items() if v}
