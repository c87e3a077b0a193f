"""The code's layers point one way: no import circle anywhere, storage imports no domain
module, and no private name is imported across modules (STYLE: Layers)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("pipeline", "schemas", "dashboard")
STORAGE = {"pipeline.base.db", "pipeline.base.store"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for package in PACKAGES for p in (ROOT / package).rglob("*.py")}


def _imports(path: Path, known: set[str]) -> list[tuple[str, list[str], int]]:
    """(module imported, names imported from it, line) for every import, at any depth."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(a.name, [], node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                if sub in known:  # `from pipeline import db` imports the module pipeline.db
                    found.append((sub, [], node.lineno))
                else:
                    found.append((node.module, [alias.name], node.lineno))
    return [(m, names, line) for m, names, line in found
            if m.split(".")[0] in PACKAGES]


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: {m for m, _, _ in _imports(path, known) if m in known and m != name}
            for name, path in modules.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_circle():
    assert _cycle(_graph()) is None, " → ".join(_cycle(_graph()) or [])


def test_the_circle_finder_finds_one():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_storage_imports_no_domain_module():
    graph = _graph()
    for module in STORAGE:
        domain = {m for m in graph[module] if m.startswith("pipeline.")} - {"pipeline.base.errors",
                                                                           "pipeline.base.db"}
        assert not domain, (module, domain)


def test_no_private_name_is_imported_across_modules():
    modules = _modules()
    known = set(modules)
    private = [(name, line, module, imported)
               for name, path in modules.items()
               for module, names, line in _imports(path, known)
               for imported in names if imported.startswith("_") and imported != "__version__"]
    assert not private, private


def _reach(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def test_the_base_imports_no_stage():
    """Issue 41: every stage may use pipeline.base; the base uses no stage."""
    graph = _graph()
    for module in (m for m in graph if m.startswith("pipeline.base")):
        upward = {m for m in graph[module] if m.startswith("pipeline.")
                  and not m.startswith("pipeline.base")}
        assert not upward, (module, upward)


ENGINES = ("pipeline.pairing", "pipeline.pairing.swiss", "pipeline.pairing.matching",
           "pipeline.pairing.systems", "pipeline.pairing.compiled", "pipeline.ranking.deals",
           "pipeline.day.clock", "pipeline.day.tablesheet", "pipeline.day.tractorsheet",
           "pipeline.history.evidence", "pipeline.history.review_marks",
           "pipeline.tractor.bracket", "pipeline.tractor.group_order", "pipeline.tractor.places",
           "pipeline.tractor.scoring", "pipeline.tractor.checks", "pipeline.officials.ladder")


def test_the_pure_engines_reach_no_storage():
    """Pairing, the deal logic, the clock, the evidence of who is who and the bracket's
    logic compute from what they are given: nothing they import, however far, opens the
    database."""
    graph = _graph()
    engines = [m for m in graph if m in ENGINES]
    assert len(engines) == len(ENGINES)
    for module in engines:
        storage = _reach(graph, module) & STORAGE
        assert not storage, (module, storage)


# The stages, lowest first: a module may import its own stage and the stages before it,
# never one after it (issue 41). A module belongs to the longest prefix that names it.
STAGES = [
    ("pipeline.base",),
    ENGINES,
    ("pipeline.tractor",),
    ("pipeline.ranking",),
    ("pipeline.history",),
    ("pipeline.intake", "schemas"),
    ("pipeline.pairing.event_round",),
    ("pipeline.day",),
    ("pipeline.publishing",),
    ("pipeline.officials",),
    ("pipeline.operations",),
    ("pipeline.commands", "pipeline.cli", "pipeline.cli_support", "pipeline.__main__",
     "pipeline"),
    ("dashboard",),
]


def stage_of(module: str) -> int:
    """The stage of a module: the one whose name is the longest prefix of it."""
    best, found = -1, None
    for rank, names in enumerate(STAGES):
        for name in names:
            if (module == name or module.startswith(name + ".")) and len(name) > best:
                best, found = len(name), rank
    assert found is not None, f"{module} is in no stage: add it to STAGES"
    return found


def test_no_stage_imports_a_later_one():
    """Data flows up the stages (a sheet → its rows stored → the ranking → a screen); an
    import may only point down them. The pure engines are one stage of their own, under
    every stage that stores."""
    graph = _graph()
    upward = sorted((module, imported) for module, imports in graph.items()
                    for imported in imports if stage_of(imported) > stage_of(module))
    assert not upward, upward


def test_the_stage_finder_takes_the_longest_name():
    assert stage_of("pipeline.pairing.swiss") == 1
    assert stage_of("pipeline.pairing.event_round") == 6
    assert stage_of("pipeline.tractor.stages") == 2
    assert stage_of("pipeline.tractor.bracket") == 1
    assert stage_of("pipeline.intake.sheets.read") == 5
    assert stage_of("pipeline.cli") == 11


def test_each_stage_says_what_it_does_and_what_it_may_use():
    """Each stage package opens with what happens there and which stages it may use."""
    import importlib

    for name in ("base", "pairing", "tractor", "ranking", "history", "intake", "day",
                 "publishing", "operations"):
        doc = importlib.import_module(f"pipeline.{name}").__doc__ or ""
        assert len(doc) > 150 and "may use" in doc.lower(), name


LONG = 400  # lines: a module longer says why it is kept whole (issue 41)


def test_modules_are_short_or_say_why_they_are_kept_whole():
    long = []
    for name, path in _modules().items():
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > LONG and "kept whole" not in (ast.get_docstring(ast.parse(text))
                                                            or ""):
            long.append((name, text.count("\n")))
    assert not long, long
