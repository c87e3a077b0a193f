"""A command that reads the database starts light (issue 32): `paisai rounds` imports no
module it does not use — pyarrow (DuckDB → polars goes through the Arrow C stream), numpy,
pandas, Jinja2, Rich (tables are drawn by `output.table`), Streamlit, plotly; nor the modules
of the other commands."""

from __future__ import annotations

import os
import subprocess
import sys

HEAVY = ("pyarrow", "numpy", "pandas", "jinja2", "rich", "streamlit", "plotly", "openskill",
         "networkx", "fpdf", "segno", "xlsxwriter")


def test_rounds_imports_nothing_it_does_not_use(cli, event16, db_file):
    assert cli("pair", "--event", "e").code == 0
    probe = ("import sys\nfrom pipeline.cli import main\ncode = main(['rounds', '--event', 'e'])\n"
             f"print('LOADED', code, [m for m in {HEAVY!r} if m in sys.modules])")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env={**os.environ, "PAISAI_DB": str(db_file)}, timeout=120)
    loaded = [line for line in done.stdout.splitlines() if line.startswith("LOADED")]
    assert loaded == ["LOADED 0 []"], done.stdout[-2000:] + done.stderr[-2000:]


def _loaded(db_file, argv: list[str], heavy: tuple[str, ...]) -> list[str]:
    probe = ("import sys\nfrom pipeline.cli import main\n"
             f"code = main({argv!r})\n"
             f"print('LOADED', code, [m for m in {heavy!r} if m in sys.modules])")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env={**os.environ, "PAISAI_DB": str(db_file)}, timeout=120)
    return [line for line in done.stdout.splitlines() if line.startswith("LOADED")] \
        or [done.stdout[-2000:] + done.stderr[-2000:]]


def test_pair_and_its_xlsx_import_nothing_they_do_not_use(event16, db_file, tmp_path):
    """`paisai pair` (issue 53) needs numpy for its engine, nothing else heavy — never the
    compiler (numba: the tests' reference only) nor pyarrow; the pairings' xlsx is written
    by polars and zipfile alone (no numpy, no xlsxwriter or openpyxl)."""
    paired = _loaded(db_file, ["pair", "--event", "e", "--format", "csv"],
                     (*HEAVY, "numba", "openpyxl"))
    assert paired == ["LOADED 0 ['numpy']"], paired
    out = tmp_path / "pairings.xlsx"
    exported = _loaded(db_file, ["export", "pairings", "--event", "e", "--round", "1", "--out",
                                 str(out)], (*HEAVY, "numba", "openpyxl"))
    assert exported == ["LOADED 0 []"], exported
    assert out.stat().st_size > 0
