"""docs/ARCHITECTURE.md names modules, SQL files and tests: each must exist (issue 41), and
every section of docs/rules/general.md has its row in the rule table."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "ARCHITECTURE.md"


def _named_paths(text: str) -> set[str]:
    return set(re.findall(r"`((?:pipeline|dashboard|schemas|tests)/[\w/.]*\.(?:py|sql|md))", text))


def _tests(text: str) -> set[tuple[str, str]]:
    return set(re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", text))


def test_every_module_and_file_named_exists():
    missing = sorted(p for p in _named_paths(DOC.read_text(encoding="utf-8"))
                     if not (ROOT / p).exists())
    assert not missing, missing


def test_every_test_named_exists():
    missing = []
    for path, name in _tests(DOC.read_text(encoding="utf-8")):
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        if name not in {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}:
            missing.append(f"{path}::{name}")
    assert not missing, missing


def test_the_rule_table_has_a_row_for_each_numbered_section_with_a_module_and_a_test():
    rows = [line for line in DOC.read_text(encoding="utf-8").splitlines()
            if re.match(r"\| \d+\. ", line)]
    assert [int(re.match(r"\| (\d+)\.", row).group(1)) for row in rows] == list(range(1, 13))
    for row in rows:
        assert _named_paths(row) and _tests(row), row


def test_the_checker_sees_a_missing_name():
    assert _named_paths("`pipeline/nowhere.py` and `tests/x.py::t`") == {"pipeline/nowhere.py",
                                                                       "tests/x.py"}
    assert not (ROOT / "pipeline/nowhere.py").exists()


def test_the_rules_are_stated_in_the_repository():
    """Issue 50: the rules live in docs/rules/ (general.md section by section, README.md the
    notices rule by rule); nothing sends the reader to a RULES.md outside the repository,
    and the rule table's sections are general.md's."""
    general = (ROOT / "docs" / "rules" / "general.md").read_text(encoding="utf-8")
    numbered = [int(n) for n in re.findall(r"^## (\d+)\. ", general, flags=re.M)]
    assert numbered == list(range(1, 13))
    sources = [p for p in ROOT.rglob("*") if p.suffix in {".py", ".md", ".sql", ".toml", ".html"}
               and ".venv" not in p.parts and "node_modules" not in p.parts and p.is_file()]
    citing = [str(p.relative_to(ROOT)) for p in sources
              if re.search(r"RULES\.md|\bRULES \d", p.read_text(encoding="utf-8", errors="ignore"))
              and p.name != "test_architecture_doc.py"]
    assert not citing, citing
