"""`make bench`: run the benchmarks, print a table and write bench/results.md."""

from __future__ import annotations

import datetime as dt
import os
import platform
import sys
from importlib.metadata import version
from pathlib import Path

from bench import (
    associations,
    burst,
    cli,
    hall,
    history,
    league,
    live_rerun,
    namesakes,
    national,
    pairing,
    publish,
    storage,
    tablesheets,
    turnaround,
)

TARGETS = {
    "turnaround at round 7, 1,000 teams": 0.2,
    "turnaround at round 7, 10,000 teams": 1.0,
    "export pairings xlsx (tables + seat index), 10,000 teams": 0.25,
    "ingest of the round's sheet, 10,000 teams": 0.10,
    "CLI start-up (paisai rounds, small database)": 0.25,
    "ingest ÷ bare read_csv, 1,000 teams": 3.0,
    "ingest ÷ bare read_csv, 10,000 teams": 3.0,
    "peak memory after 10,000 teams (MB)": 1024,
    "publish the site of 10,000 teams": 5.0,
    "publish after the next round, 10,000 teams": 5.0,
    "pair round 7 of 16 teams": 0.05,
    "pair round 7 of 10,000 teams": 2.0,
    "history: full rating recomputation": 10.0,  # issue 31
    "history: player profile": 0.1,
    "history: rating leaderboard": 0.5,
    "history: first paisai player after the import": 2.0,
    "history: /history's reads after the import": 2.0,
    "national: start-up ÷ import polars, duckdb": 1.2,  # issue 32
    "national: simulate 7 rounds, 100,000 teams": 60.0,
    "national: ingest + standings + pair + xlsx, 100,000 teams": 10.0,
    "national: pair, 100,000 teams": 2.5,  # issue 53 (was 3.0, issue 32)
    "national: ingest, 100,000 teams": 1.5,  # issue 53
    "national: ingest + standings + pair + xlsx net of start-up, 10,000 teams": 1.0,
    "national: ingest + standings + pair + xlsx net of start-up, 100,000 teams": 7.0,
    f"burst: {burst.BURST_PHONES} phones at once on /m/{{event}}/, p95": 0.5,  # issue 53
    "burst: the console drawn after signing in, with the burst": 3.0,
    "burst: the projector's first view, with the burst": 3.0,
    "burst: the console's upload → preview, no phones": 1.5,
    "national: publish, 100,000 teams": 30.0,
    "national: peak memory of a step, 100,000 teams (MB)": 2048,
    "namesakes: identities off the persons (%)": 2.0,  # issue 40
    "associations: ids ÷ people (%)": 102.0,  # issue 52: the hard league
    "associations: people split (%)": 1.0,
    "associations: import-event of one event (median)": 3.0,
    "history: paisai import-event, one more event": 3.0,
    # issue 52: an archive written by other tools answers in seconds from its first open
    "history: first paisai player on a stale archive": 10.0,
    "history: /history's first view on a stale archive": 10.0,
    "history: paisai import-event into a stale archive": 3.0,
    **{f"national: growth of {step}, 10,000 → 100,000 teams": 12.0
       for step in ("ingest", "standings", "pair", "xlsx", "publish")},
}


for _channel, _levels in (("phones' pages", hall.PLAIN), ("Streamlit pages", hall.STREAMLIT)):
    for _phones in _levels:  # issue 30: the hall's targets, on either channel
        _level = f"hall: {_phones} phones on the {_channel}"
        TARGETS[f"{_level}, p95 of every request"] = 0.3
        TARGETS[f"{_level}, the organizer's ingest + pair"] = 2.0
        # issue 53 (issue 30: 5 s; issue 39: 2 s each)
        TARGETS[f"{_level}, the projector shows the complete round"] = 3.0
        TARGETS[f"{_level}, upload → preview"] = 1.5
        TARGETS[f"{_level}, confirm → stored"] = 1.5
        TARGETS[f"{_level}, pairing → projector"] = 5.0

for _page in live_rerun.PAGES:  # issue 53: a desktop browser's session, within a phone's p95
    for _run in ("a rerun (median)", "the run after the round is stored"):
        TARGETS[f"live rerun: /{_page}, a desktop session, 1,000 teams, {_run}"] = 0.3

for _phones in tablesheets.PHONES:  # issue 42: the tables' own sheets in a full hall
    _level = f"table sheets: {tablesheets.TEAMS // 2} tables, {_phones} phones"
    TARGETS[f"{_level}, a deal entered → shown on the sheet (p95)"] = 0.3
    TARGETS[f"{_level}, a deal confirmed → shown (p95)"] = 0.3
    TARGETS[f"{_level}, a deal stored → the projector shows it (p95)"] = 3.0
    TARGETS[f"{_level}, the phones' p95 of every request"] = 0.3


AT_LEAST = {  # figures that are not times: the target is a floor
    "namesakes: namesake pairs kept apart (%)": 90,  # issue 40
    "namesakes: movers kept whole (%)": 95,
    "associations: movers whole (%)": 95,  # issue 52
    "associations: namesake pairs apart, across clubs (%)": 90,
    "associations: namesake pairs apart, within a club (%)": 90,
    "ratings: Spearman with the hidden strengths (mean of leagues)": 0.85,
    "ratings: true top 20 in the list's top 20 (mean of leagues)": 12,
    "burst: a phone opening /live lands on the plain page (1 yes, 0 no)": 1,  # issue 53
}
GROUPS = {  # `python -m bench NAME…` runs these alone and keeps the other rows of results.md
    "turnaround": lambda: [*turnaround.run(16), *turnaround.run(1_000),
                           *turnaround.run(10_000, repeats=3)],
    "cli": lambda: cli.run(1_000),
    "pairing": lambda: [pairing.run(16), pairing.run(10_000)],
    "publish": lambda: publish.run(10_000),
    "hall": hall.run,
    "burst": burst.run,
    "tablesheets": tablesheets.run,
    "history": history.run,
    "league": lambda: league.run()[0],
    "namesakes": namesakes.run,
    "associations": associations.run,
    "national": national.run,
    "storage": storage.run,  # issue 54: the site on object storage, the archive's bundles
    "liverun": live_rerun.run,  # issue 53: a desktop session's reruns of /live and /pairings
}


def _line(row: dict) -> str:
    case, value = row["case"], row["seconds"]
    if case in AT_LEAST:
        target = AT_LEAST[case]
        met = "yes" if value >= target else "NO"
        shown = f"≥ {target}"
    else:
        target = TARGETS.get(case)
        met = "" if target is None else ("yes" if value <= target else "NO")
        shown = target or ""
    return f"| {case} | {value:.3f} | {shown} | {met} | {row['note']} |"


def compiled() -> None:
    """The project's byte-code up to date, as `make install` leaves it: a checkout or merge
    since then gives the changed modules new times, and with PYTHONDONTWRITEBYTECODE (this
    machine) every command measured would compile them from source again (tens of ms each
    start)."""
    import compileall

    root = Path(__file__).resolve().parent.parent
    for package in ("pipeline", "schemas", "dashboard"):
        compileall.compile_dir(root / package, quiet=1)


def main(names: list[str]) -> int:
    chosen = names or list(GROUPS)
    unknown = [n for n in chosen if n not in GROUPS]
    if unknown:
        print(f"unknown benchmark {', '.join(unknown)}; known: {', '.join(GROUPS)}")
        return 2
    compiled()
    results = Path(__file__).with_name("results.md")
    kept: dict[str, str] = {}
    if names and results.exists():  # the rows of the groups not run now stay as they were
        for line in results.read_text(encoding="utf-8").splitlines():
            if line.startswith("###"):  # the league comparison and the findings: not rows
                break
            if line.startswith("| ") and not line.startswith(("| case", "| method")):
                kept[line.split(" | ")[0][2:]] = line
    new = {row["case"]: _line(row) for name in chosen for row in GROUPS[name]()}
    table = {**kept, **new} if names else new
    league_text = league.run()[1] if "league" in chosen else _section(results)
    lines = [
        "# Benchmarks",
        "",
        f"- date: {dt.datetime.now().isoformat(timespec='seconds')}"
        + (f" (this run: {', '.join(chosen)}; the other rows from the run before)"
           if names else ""),
        f"- machine: {platform.machine()}, {os.cpu_count()} cores, {platform.platform()}",
        f"- python {platform.python_version()}, polars {version('polars')}, "
        f"duckdb {version('duckdb')}, networkx {version('networkx')}, numpy {version('numpy')}",
        "",
        "| case | seconds | target | met | note |",
        "|---|---:|---:|---|---|",
        *table.values(),
    ]
    findings = Path(__file__).with_name("findings.md").read_text(encoding="utf-8")
    text = "\n".join(lines) + "\n\n" + league_text + "\n" + findings
    print(text)
    results.write_text(text, encoding="utf-8")
    return 0


def _section(results: Path) -> str:
    """The league comparison of the run before (kept when it is not run again)."""
    if not results.exists():
        return ""
    text = results.read_text(encoding="utf-8")
    start = text.find("### Ratings on simulated leagues")
    if start < 0:
        return ""
    end = text.find("\n\n", text.find("| hidden strengths", start))
    return text[start:end + 1] + "\n"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
