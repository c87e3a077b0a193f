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
