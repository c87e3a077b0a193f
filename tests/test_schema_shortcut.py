"""The one-query shortcut for the pandera schemas must agree with pandera itself."""

from __future__ import annotations

import pandera.polars as pa
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.intake.sheets.headers import ALIASES
from pipeline.intake.validate import schema_passes
from schemas import SCHEMAS

CELLS = st.one_of(st.none(), st.sampled_from(
    ["1", "7", "0", "-3", "2.0", "x", "", "A", "过A", "K", "10", "ew", "南北", "二游", "积分",
     "A1", " 5 ", "１２", "3.5", "下游", "NS"]))


def _pandera_passes(kind: str, frame: pl.DataFrame) -> bool:
    try:
        SCHEMAS[kind].validate(frame, lazy=True)
    except pa.errors.SchemaErrors:
        return False
    return True


@pytest.mark.parametrize("kind", sorted(SCHEMAS))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_shortcut_agrees_with_pandera(kind, data):
    columns = list(ALIASES[kind])
    rows = data.draw(st.integers(min_value=1, max_value=4))
    frame = pl.DataFrame({c: data.draw(st.lists(CELLS, min_size=rows, max_size=rows))
                          for c in columns}, schema=dict.fromkeys(columns, pl.String))
    assert schema_passes(kind, frame) == _pandera_passes(kind, frame)


def test_a_clean_results_sheet_takes_the_shortcut():
    frame = pl.DataFrame({c: [None] for c in ALIASES["results"]},
                         schema=dict.fromkeys(ALIASES["results"], pl.String)).with_columns(
        round=pl.lit("3"), table=pl.lit("12"), ew_level=pl.lit("过A"), ns_level=pl.lit("10"),
        deals=pl.lit("6"))
    assert _pandera_passes("results", frame)
    assert schema_passes("results", frame)
    wrong = frame.with_columns(ns_level=pl.lit("Z"))
    assert not _pandera_passes("results", wrong)
    assert not schema_passes("results", wrong)


def test_validation_does_not_import_pandas():
    """A fresh `paisai ingest` process validates a clean sheet without pandera and a sheet with
    a problem with pandera, neither loading pandas."""
    import subprocess
    import sys

    code = ("import sys, pipeline.intake.ingest, pipeline.cli; "
            "print('pandas' in sys.modules, 'pandera' in sys.modules)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert run.stdout.split() == ["False", "False"]
    code = ("import sys, polars as pl; "
            "from pipeline.intake.validate import _complete, _schema_problems; "
            "from pipeline.intake.sheets.kinds.base import Where; "
            "from pipeline.intake.sheets.read import RawSheet; "
            "frame = pl.DataFrame({'round': ['x'], '_row': [2]}); "
            "sheet = RawSheet('f.csv', '', 'results', 1, {'round': '轮次'}, frame); "
            "print(len(_schema_problems(sheet, _complete(sheet), Where([sheet]))) == 1, "
            "'pandas' in sys.modules, 'pandera' in sys.modules)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.stdout.split() == ["True", "False", "True"], run.stderr[-2000:]
