"""Object storage (issue 54): a national event's site published to a local S3-compatible
store (moto's server, a process of its own on 127.0.0.1) — every page the first time, then
after one round only what changed — and an association's archive of 1,000 event bundles
synced into an empty database from the same store.

The store on loopback costs what the requests cost on this machine (moto's server and
boto3 share the two cores); a real store adds its network round trip per request, spread
over the uploading threads (`remote.WORKERS`).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import polars as pl

from bench.publish import three_publishes
from pipeline.publishing import bundle
from pipeline.publishing.objectstore import Location, Store
from pipeline.publishing.remote import publish_to_store
from pipeline.publishing.sync import sync

ENV = {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench",
       "AWS_DEFAULT_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true",
       "AWS_CONFIG_FILE": os.devnull, "AWS_SHARED_CREDENTIALS_FILE": os.devnull}


@contextmanager
def local_store():
    """moto's server on a free loopback port, in its own process, stopped after."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "moto_server"), "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    saved = {name: os.environ.get(name) for name in ENV}
    os.environ.update(ENV)
    try:
        endpoint = f"http://127.0.0.1:{port}"
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        yield endpoint
    finally:
        server.terminate()
        try:  # moto's server can take its time to stop after 100,000 objects: the figures
            server.wait(timeout=30)  # are measured, never lost to its exit
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def publishing(endpoint: str, teams: int) -> list[dict]:
    place = Location("site", "national", endpoint)
    Store(place).s3.create_bucket(Bucket="site")
    (first, again, after), (full, unchanged, next_round) = three_publishes(
        teams, lambda database: publish_to_store(database, "bench", place,
                                                 "https://cdn.example.org/q/"))
    label = f"{teams:,} teams"
    return [
        {"case": f"storage: publish to the local store, {label}", "seconds": full,
         "note": f"{len(first.uploaded):,} files uploaded (PUT), index last"},
        {"case": f"storage: publish again, nothing changed, {label}", "seconds": unchanged,
         "note": f"{len(again.uploaded)} uploaded: the pages made and hashed, one GET"},
        {"case": f"storage: publish after the next round, {label}", "seconds": next_round,
         "note": f"{len(after.uploaded):,} uploaded, {len(after.deleted)} deleted, "
                 f"{after.unchanged:,} unchanged"},
    ]


def _parquet(frame: pl.DataFrame) -> bytes:
    out = io.BytesIO()
    frame.write_parquet(out, statistics=False)
    return out.getvalue()


def league_bundles(count: int, people: int = 2_000, teams: int = 16,
                   seed: int = 54) -> list[tuple[str, dict[str, bytes]]]:
    """`count` bundles of a simulated league: events of `teams` pairs drawn from `people`
    players in 40 clubs, three rounds of random levels each (as `event export` writes them;
    the ranking and awards files left empty, sync does not read them)."""
    pick = random.Random(seed)
    club = {p: f"俱乐部{p % 40}" for p in range(people)}
    made = []
    for number in range(count):
        event_id = f"s{number:04d}"
        seats = pick.sample(range(people), 2 * teams)
        team_nos = [f"A{t + 1}" for t in range(teams)]
        players = pl.DataFrame({
            "team_no": [team_nos[i // 2] for i in range(2 * teams)],
            "slot": [i % 2 + 1 for i in range(2 * teams)],
            "name": [f"选手{p}" for p in seats], "member_id": [None] * (2 * teams)},
            schema_overrides={"member_id": pl.String, "slot": pl.Int32})
        frames = {
            "teams.parquet": pl.DataFrame({
                "team_no": team_nos, "team_name": [f"{t}队" for t in team_nos],
                "affiliation": [club[seats[2 * t]] for t in range(teams)]}),
            "players.parquet": players,
            "results.parquet": pl.DataFrame([
                {"round": r, "table_no": t + 1, "ew_team": order[2 * t],
                 "ns_team": order[2 * t + 1], "ew_level": pick.randint(2, 15),
                 "ns_level": pick.randint(2, 14), "deals": None, "forfeit": None,
                 "first_to_level": None, "last_deal_side": None}
                for r in (1, 2, 3) for order in [pick.sample(team_nos, teams)]
                for t in range(teams // 2)],
                schema_overrides={"deals": pl.Int32, "forfeit": pl.String,
                                  "first_to_level": pl.String, "last_deal_side": pl.String}),
            "rankings.parquet": pl.DataFrame(schema={"rank": pl.Int64, "team_no": pl.String}),
            "awards.parquet": pl.DataFrame(schema={"team_no": pl.String}),
        }
        files = {name: _parquet(frame) for name, frame in frames.items()}
        hashes = {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}
        from pipeline.base.ruleset import load_preset
        about = {"id": event_id, "name": f"联赛第{number + 1}站",
                 "date": f"{2020 + number // 200}-{number % 12 + 1:02d}-{number % 28 + 1:02d}"}
        rules = {"name": "suzhou-2025", "toml": load_preset("suzhou-2025").source}
        manifest = {"format": bundle.FORMAT, "format_version": bundle.FORMAT_VERSION,
                    "bundle_id": bundle.bundle_id(about, rules, hashes),
                    "event": about, "ruleset": rules,
                    "paisai_version": "bench",
                    "files": {n: {"sha256": h} for n, h in hashes.items()}}
        files[bundle.MANIFEST] = json.dumps(manifest, ensure_ascii=False).encode()
        made.append((event_id, files))
    return made


def syncing(endpoint: str, count: int) -> list[dict]:
    archive = Location("archive", "league", endpoint)
    store = Store(archive)
    store.s3.create_bucket(Bucket="archive")
    for event_id, files in league_bundles(count):
        for name, data in files.items():
            Store(archive.below(event_id), store.s3).put(name, data, "application/octet-stream")
    with tempfile.TemporaryDirectory() as scratch:
        database = Path(scratch) / "association.duckdb"
        started = time.perf_counter()
        done = sync(database, archive)
        first = time.perf_counter() - started
        started = time.perf_counter()
        again = sync(database, archive)
        nothing = time.perf_counter() - started
        size = database.stat().st_size
    return [
        {"case": f"storage: history sync of {count:,} bundles into an empty database",
         "seconds": first, "note": f"{len(done.imported):,} imported, {len(done.refused)} "
                                   f"refused; database {size / 1e6:.0f} MB"},
        {"case": f"storage: history sync again, {count:,} bundles held", "seconds": nothing,
         "note": f"{len(again.imported)} imported: one listing, nothing downloaded"},
    ]


def run(teams: int | None = None, bundles: int | None = None) -> list[dict]:
    """The issue's sizes (100,000 teams, 1,000 bundles) unless BENCH_STORAGE_TEAMS /
    BENCH_STORAGE_BUNDLES ask for a shorter run on a busy machine (0 leaves a half out)."""
    teams = int(os.environ.get("BENCH_STORAGE_TEAMS", 100_000)) if teams is None else teams
    bundles = int(os.environ.get("BENCH_STORAGE_BUNDLES", 1_000)) if bundles is None \
        else bundles
    with local_store() as endpoint:  # 0: that half is left out
        return [*(publishing(endpoint, teams) if teams else []),
                *(syncing(endpoint, bundles) if bundles else [])]


if __name__ == "__main__":
    sizes = [int(a) for a in sys.argv[1:]] or [10_000, 50]
    for row in run(*sizes):
        print(row)
