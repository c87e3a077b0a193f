"""Sheet templates (issue 21): the header as ingest reads it, drop-down lists, an example
row that ingest skips; a filled template is ingested without changes."""

from __future__ import annotations

import openpyxl
import pytest
from conftest import read_csv_output

from pipeline.publishing.export.template import KINDS


@pytest.mark.parametrize("kind", KINDS)
def test_every_template_is_read_back_as_its_kind(cli, event16, tmp_path, kind):
    out = tmp_path / f"{kind}.xlsx"
    assert cli("template", kind, "--event", "e", "--out", out).code == 0
    sheet = openpyxl.load_workbook(out).active
    assert sheet.freeze_panes == "A3" and "测试赛" in sheet["A1"].value
    assert str(sheet["A3"].value).startswith("示例")
    # an untouched template: the example row is skipped, so there is nothing to store
    run = cli("ingest", "--event", "e", "--kind", kind, out)
    assert run.code == 2 and "只有表头，没有数据行" in run.err, run.out + run.err


def test_a_filled_results_template_round_trips(cli, event16, tmp_path):
    out = tmp_path / "r.xlsx"
    assert cli("template", "results", "--event", "e", "--out", out).code == 0
    book = openpyxl.load_workbook(out)
    sheet = book.active
    lists = {str(v.sqref).split(":")[0][0]: v.formula1 for v in sheet.data_validations.dataValidation}
    assert "过A" in lists["E"] and "东西" in lists["H"]  # levels and the forfeit side
    headers = [c.value for c in sheet[2]]
    assert headers[:6] == ["轮次", "桌号", "东西队号", "南北队号", "东西级数", "南北级数"]
    for row, values in enumerate([[1, 1, "A1", "A2", "K", "9"], [1, 2, "A3", "A4", "过A", "Q"]],
                                 start=4):
        for col, value in enumerate(values, start=1):
            sheet.cell(row, col, value)
    book.save(out)
    run = cli("ingest", "--event", "e", out)
    assert run.code == 0 and "新增 new 2" in run.out, run.err
    rows = {r["team_no"]: r for r in read_csv_output(
        cli("standings", "--event", "e", "--format", "csv").out)}
    assert (rows["A3"]["levels"], rows["A1"]["levels"]) == ("15", "13")
