"""Output for people (Rich tables that line up in Chinese, colour only on a terminal,
progress on stderr) and for programs (CSV and JSON unchanged)."""

from __future__ import annotations

import io
import sys

import polars as pl
from conftest import write_csv

from pipeline.base import output
from pipeline.base.output import display_width


def _frame() -> pl.DataFrame:
    return pl.DataFrame({"rank": [1, 2], "team_no": ["A1", "A10"],
                         "team_name": ["关务一队", "Team [bold]2[/bold]"],
                         "status": ["active", "withdrawn"]})


def test_columns_line_up_in_display_width(monkeypatch):
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False, raising=False)
    lines = output.table(_frame()).splitlines()
    header, rule, *rows = lines
    assert header.split() == ["名次", "队号", "队名", "状态"] and set(rule) == {"─"}
    # the team name column starts at the same display column on every line
    starts = []
    for line in (header, *rows):
        cut = line.index("队名") if line is header else line.index(line.split()[2])
        starts.append(display_width(line[:cut]))
    assert len(set(starts)) == 1, lines
    assert "Team [bold]2[/bold]" in rows[1]  # text, never markup
    assert "\x1b[" not in output.table(_frame())


def test_colour_only_on_a_terminal_and_never_with_no_color(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdout", Terminal())
    monkeypatch.delenv("NO_COLOR", raising=False)
    styled = output.table(_frame(), row_styles=["bold", "dim"])
    assert "\x1b[" in styled
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in output.table(_frame(), row_styles=["bold", "dim"])


def test_people_read_chinese_programs_read_code_names():
    frame = _frame()
    shown = output.render(frame, "table")
    assert "状态" in shown and "退赛" in shown and "withdrawn" not in shown
    assert output.render(frame, "csv").splitlines()[0] == "rank,team_no,team_name,status"
    assert '"status": "withdrawn"' in output.render(frame, "json")


def test_progress_of_a_folder_import_on_stderr(paisai, tmp_path):
    folder = tmp_path / "past"
    folder.mkdir()
    write_csv(folder / "entries.csv", [["队号", "队名"], ["A1", "甲"], ["A2", "乙"]])
    write_csv(folder / "round1.csv", [["轮次", "桌号", "东西队号", "南北队号", "东西级数",
                                       "南北级数"], [1, 1, "A1", "A2", "9", "8"]])
    quiet = paisai("import-event", "--id", "p1", "--name", "往届", "--ruleset", "suzhou-2025",
                   folder)
    assert quiet.code == 0 and "读取" not in quiet.err  # not a terminal: no bar
    shown = paisai("import-event", "--id", "p2", "--name", "往届", "--ruleset", "suzhou-2025",
                   folder, env={"PAISAI_PROGRESS": "1"})
    assert shown.code == 0, shown.err
    assert "读取 reading" in shown.err and "round1.csv" in shown.err
    assert shown.out == quiet.out.replace("p1", "p2")  # stdout unchanged
