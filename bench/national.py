"""A national online qualifier (issue 32): the round-7 → round-8 turnaround through the CLI,
each step a fresh `paisai` process as an organizer's script runs it, at 1,000, 10,000 and
100,000 teams; the growth of each step from one size to the next; the simulation that
prepares the event; the start-up of a command beside its floor.

Steps: ingest round 7's sheet, the standings (CSV), pair round 8, the pairings as xlsx
(tables + seat index), publish the site again (it was published after round 7: only the
pages that changed are rewritten). Each step's peak memory is its process's max RSS.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.turnaround import prepare as prepare_event
from pipeline.base import db
from pipeline.publishing.publish import publish

# each step's peak memory: the process's own high-water mark (VmHWM); ru_maxrss would keep
# the forking bench's when that was larger (a history bench run before it: 849 MB for every
# step of 1,000 teams)
MAIN = """import resource, sys
from pipeline.cli import main
code = main()  # as the installed command calls it (its exit as the command's)
try:
    with open("/proc/self/status") as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM"))
except (OSError, StopIteration):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
sys.stderr.write(f"\\nmaxrss={peak}\\n")
sys.exit(code)
"""
STEPS = ("ingest", "standings", "pair", "xlsx", "publish")
SITE = "https://example.org/q/"


def prepare(folder: Path, teams: int) -> tuple[Path, Path, float]:
    """The turnaround's event (rounds 1–6 stored, round 7 paired) with its site published;
    round 7's sheet; the seconds the simulation of 7 rounds took."""
    timings: dict[str, float] = {}
    database, sheet = prepare_event(folder, teams, "全国线上海选", timings)
    publish(database, "bench", folder / "site", SITE)
    return database, sheet, timings["simulate"]


def _paisai(database: Path, *args: str) -> tuple[float, float]:
    """Seconds and peak MB of one `paisai` process."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", MAIN, "--db", str(database), *args],
                          capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode:
        raise RuntimeError(f"paisai {' '.join(args)}: {done.stderr[-2000:]}")
    rss = int(done.stderr.rsplit("maxrss=", 1)[1].split()[0])
    return seconds, rss / 1024


def turnaround(folder: Path, base: Path, sheet: Path) -> dict[str, tuple[float, float]]:
    database = folder / "run.duckdb"
    shutil.copyfile(base, database)
    site = folder / "run-site"
    if site.exists():
        shutil.rmtree(site)
    shutil.copytree(folder / "site", site)
    commands = {
        "ingest": ["ingest", "--event", "bench", str(sheet)],
        "standings": ["standings", "--event", "bench", "--format", "csv"],
        "pair": ["pair", "--event", "bench", "--format", "csv"],
        "xlsx": ["export", "pairings", "--event", "bench", "--round", "8", "--out",
                 str(folder / "pairings.xlsx")],
        "publish": ["publish", "--event", "bench", "--out", str(site), "--base-url", SITE],
    }
    times = {step: _paisai(database, *commands[step]) for step in STEPS}
    with db.reading(database) as con:  # the pairing stored how many rematches it kept
        times["rematches"] = (db.scalar(con, "select rematches from pairing_rounds where "
                                             "event_id = 'bench' and round = 8"), 0.0)
    return times


def floor(repeats: int = 5) -> float:
    """`python -c "import polars, duckdb"`: what any command that reads the file costs."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import polars, duckdb"], check=True)
        times.append(time.perf_counter() - started)
    return min(times)


def startup(folder: Path, repeats: int = 5) -> float:
    small = folder / "small.duckdb"
    _paisai(small, "event", "create", "--id", "s", "--name", "s", "--ruleset", "suzhou-2025")
    return min(_paisai(small, "rounds", "--event", "s")[0] for _ in range(repeats))


def run(sizes: tuple[int, ...] = (1_000, 10_000, 100_000), repeats: int = 3) -> list[dict]:
    rows: list[dict] = []
    measured: dict[int, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        base_floor = floor()
        start = startup(Path(scratch))
        rows.append({"case": "national: start-up ÷ import polars, duckdb",
                     "seconds": start / base_floor,
                     "note": f"paisai rounds on a small database {start:.3f} s; python -c "
                             f"\"import polars, duckdb\" {base_floor:.3f} s (best of 5 each)"})
        for teams in sizes:
            folder = Path(scratch) / str(teams)
            folder.mkdir()
            base, sheet, simulated = prepare(folder, teams)
            label = f"{teams:,} teams"
            rows.append({"case": f"national: simulate 7 rounds, {label}", "seconds": simulated,
                         "note": "paired by the event's rules, played deal by deal, sheets "
                                 "written (setup)"})
            runs = [turnaround(folder, base, sheet) for _ in range(repeats)]
            best = {step: min(r[step][0] for r in runs) for step in STEPS}
            peak = max(r[step][1] for r in runs for step in STEPS)
            measured[teams] = best
            core = sum(best[s] for s in ("ingest", "standings", "pair", "xlsx"))
            median = statistics.median(sum(r[s][0] for s in ("ingest", "standings", "pair",
                                                               "xlsx")) for r in runs)
            rows.append({"case": f"national: ingest + standings + pair + xlsx, {label}",
                         "seconds": core,
                         "note": f"best of {repeats} per step (median total {median:.2f} s), "
                                 "each a fresh process: " + ", ".join(
                                     f"{s} {best[s]:.2f}" for s in STEPS[:4])})
            rows.append({"case": f"national: ingest + standings + pair + xlsx net of start-up, "
                                 f"{label}", "seconds": core - 4 * start,
                         "note": f"the four steps less four start-ups ({start:.3f} s each: "
                                 "paisai rounds on a small database)"})
            rematches = max(r["rematches"][0] for r in runs)
            for step in STEPS:
                rows.append({"case": f"national: {step}, {label}", "seconds": best[step],
                             "note": f"best of {repeats}, a fresh process"
                             + (f"; {rematches} rematches" if step == "pair" else "")})
            rows.append({"case": f"national: peak memory of a step, {label} (MB)",
                         "seconds": peak, "note": "the largest max RSS of any step's process"})
    for small, large in zip(sizes, sizes[1:], strict=False):
        for step in STEPS:
            if small in measured and large in measured:
                rows.append({
                    "case": f"national: growth of {step}, {small:,} → {large:,} teams",
                    "seconds": measured[large][step] / measured[small][step],
                    "note": f"{measured[small][step]:.2f} s → {measured[large][step]:.2f} s "
                            f"for {large // small}× the teams"})
    return rows
