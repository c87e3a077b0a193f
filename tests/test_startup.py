"""A command that reads the database starts light (issue 32): `paisai rounds` imports no
module it does not use — pyarrow (DuckDB → polars goes through the Arrow C stream), numpy,
pandas, Jinja2, Rich (tables are drawn by `output.table`), Streamlit, plotly; nor the modules
of the other commands. Issue 53: nor do `paisai ingest` of a round's sheet and `paisai
standings` — no pandera for a clean sheet, no pairing engine, no publishing, no history."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import RESULT_HEADER, write_csv

HEAVY = ("pyarrow", "numpy", "pandas", "jinja2", "rich", "streamlit", "plotly", "openskill",
         "networkx", "fpdf", "segno", "xlsxwriter")


def test_rounds_imports_nothing_it_does_not_use(cli, event16, db_file):
    assert cli("pair", "--event", "e").code == 0
    probe = ("import sys\nfrom pipeline.cli import main\ncode = main(['rounds', '--event', 'e'])\n"
             f"print('LOADED', code, [m for m in {(*HEAVY, 'tomllib')!r} if m in sys.modules])")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env={**os.environ, "PAISAI_DB": str(db_file)}, timeout=120)
    loaded = [line for line in done.stdout.splitlines() if line.startswith("LOADED")]
    # nor the ruleset's TOML parser (issue 53): the rounds need the event's id, not its rules
    assert loaded == ["LOADED 0 []"], done.stdout[-2000:] + done.stderr[-2000:]


# what neither a round's ingest nor the standings use: the validation's pandera (a clean sheet
# is found clean by one polars query), the pairing engine, the site's writers, the history,
# OpenCC (a header written in simplified Chinese is known as written), the other sheet kinds'
# checks and the Tractor sheets
UNUSED = (*HEAVY, "pandera", "pipeline.pairing.swiss", "pipeline.pairing.matching",
          "pipeline.publishing.publish", "pipeline.history.identity", "pipeline.history.ratings",
          "pipeline.operations.serve", "opencc", "pipeline.tractor.sheets",
          "pipeline.ranking.deals", "pipeline.intake.sheets.kinds.entries")


def _loaded(db_file, argv: list[str], heavy: tuple[str, ...] = UNUSED) -> list[str]:
    probe = (f"import sys\nfrom pipeline.cli import main\ncode = main({argv!r})\n"
             f"print('LOADED', code, [m for m in {heavy!r} if m in sys.modules])")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env={**os.environ, "PAISAI_DB": str(db_file)}, timeout=120)
    return [line for line in done.stdout.splitlines() if line.startswith("LOADED")] or [
        done.stdout[-2000:] + done.stderr[-2000:]]


def test_ingest_and_standings_import_nothing_they_do_not_use(cli, event16, db_file, tmp_path):
    sheet = write_csv(tmp_path / "r1.csv", [RESULT_HEADER, *[
        [1, t, f"A{2 * t - 1}", f"A{2 * t}", "10", "8"] for t in range(1, 9)]])
    assert _loaded(db_file, ["ingest", "--event", "e", str(sheet)]) == ["LOADED 0 []"]
    assert _loaded(db_file, ["standings", "--event", "e", "--format", "csv"]) == [
        "LOADED 0 []"]
    with_error = write_csv(tmp_path / "bad.csv", [RESULT_HEADER, [2, 1, "A1", "A3", "1", "8"]])
    # a sheet with a problem names it (pandera then, as before): exit 2, nothing else loaded
    loaded = _loaded(db_file, ["ingest", "--event", "e", str(with_error)])
    assert loaded[0].startswith("LOADED 2"), loaded


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


def test_known_headers_are_their_own_simplified_spelling():
    """A header some kind knows as written is matched without OpenCC (KNOWN_HEADERS): exact
    only while each is already simplified, as this checks."""
    from pipeline.base.chinese import simplified
    from pipeline.intake.sheets import headers

    assert headers.KNOWN_HEADERS
    assert [h for h in headers.KNOWN_HEADERS if simplified(h) != h] == []


def test_the_collector_pauses_only_while_the_commands_import(cli, event16, db_file):
    """pipeline/cli.py pauses the cyclic garbage collector while the CLI's modules and a
    command's area import, and freezes what they made (issue 53: about 45 ms of every
    command): after the imports, and after a command that fails, it collects again."""
    probe = ("import gc, sys\nfrom pipeline.cli import main\n"
             "print('ON', gc.isenabled(), gc.get_freeze_count() > 0)\n"
             "code = main(['rounds', '--event', 'e'])\nmissing = main(['rounds', '--event', 'x'])\n"
             "print('AFTER', code, missing, gc.isenabled())")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env={**os.environ, "PAISAI_DB": str(db_file)}, timeout=120)
    said = [line for line in done.stdout.splitlines() if line.startswith(("ON", "AFTER"))]
    assert said == ["ON True True", "AFTER 0 1 True"], done.stdout[-2000:] + done.stderr[-2000:]
    # a process that turned the collector off itself finds it off after a command
    off = subprocess.run([sys.executable, "-c", "import gc\ngc.disable()\n" + probe],
                         capture_output=True, text=True,
                         env={**os.environ, "PAISAI_DB": str(db_file)}, timeout=120)
    said = [line for line in off.stdout.splitlines() if line.startswith(("ON", "AFTER"))]
    assert said == ["ON False True", "AFTER 0 1 False"], off.stdout[-2000:] + off.stderr[-2000:]
