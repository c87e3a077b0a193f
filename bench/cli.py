"""The organizer's view: `paisai ingest` then `paisai pair`, each a fresh process (imports,
opening the file, one transaction), on the 1,000-team event at round 7."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.turnaround import prepare

# as the installed command calls it: main() reads sys.argv (its exit as the command's)
MAIN = "import sys; from pipeline.cli import main; sys.exit(main())"


def _paisai(database: Path, *args: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", MAIN, "--db", str(database), *args], check=True,
                   capture_output=True)
    return time.perf_counter() - started


def run(teams: int = 1_000, repeats: int = 3) -> list[dict]:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        base, sheet = prepare(folder, teams)
        database = folder / "run.duckdb"
        ingests, pairs = [], []
        for _ in range(repeats):
            shutil.copyfile(base, database)
            ingests.append(_paisai(database, "ingest", "--event", "bench", str(sheet)))
            pairs.append(_paisai(database, "pair", "--event", "bench"))
        small = folder / "small.duckdb"
        _paisai(small, "event", "create", "--id", "s", "--name", "s", "--ruleset",
                "suzhou-2025")
        startups = [_paisai(small, "rounds", "--event", "s") for _ in range(5)]
    label = f"{teams:,} teams"
    return [
        {"case": "CLI start-up (paisai rounds, small database)", "seconds": min(startups),
         "note": "best of 5, wall: Python start, imports, one read"},
        {"case": f"paisai ingest, a fresh process, {label}", "seconds": min(ingests),
         "note": f"best of {repeats}: Python start and imports included"},
        {"case": f"paisai pair, a fresh process, {label}", "seconds": min(pairs),
         "note": f"best of {repeats}: Python start and imports included"},
    ]
