"""Issue 54: event bundles. Each event of a small league is run on its own organizer's
database and exported to an archive on a local S3-compatible store (moto's server on
127.0.0.1); the association's database is built by `paisai history sync` alone — in two
orders, the same people under the same ids — and its commands read it. A bundle changed
after export is refused, naming the file, with nothing of it stored. The commands run through
the real `main` in this process (`within`), a few as processes of their own (`run`: a sync
and an export, as an organizer runs them)."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from unittest.mock import patch

import polars as pl
import pytest
from conftest import ENTRY_HEADER, RESULT_HEADER, read_csv_output, write_csv
from s3local import ENV, Store

from pipeline.base import db, oplog
from pipeline.cli import main
from pipeline.publishing.bundle import bundle_id

# (team, player1, player2, unit): 王伟 of 恒通 and 王伟 of 远航 are two people; 李明 moves
# from 恒通 to 华信 (one person); the league of tests/test_identities_stable.py
EVENTS = {
    "e1": [("A1", "王伟", "周一", "恒通"), ("A2", "王伟", "孙五", "远航"),
           ("A3", "李明", "吴二", "恒通"), ("A4", "赵敏", "钱六", "华信")],
    "e2": [("A1", "王伟", "赵敏", "恒通"), ("A2", "李明", "周一", "恒通"),
           ("A3", "王伟", "郑七", "远航"), ("A4", "钱六", "冯八", "华信")],
    "e3": [("A1", "王伟", "赵敏", "华信"), ("A2", "王伟", "孙五", "远航"),
           ("A3", "李明", "周一", "恒通"), ("A4", "钱六", "冯八", "华信")],
    "e4": [("A1", "王伟", "周一", "恒通"), ("A2", "李明", "冯八", "华信"),
           ("A3", "王伟", "郑七", "远航"), ("A4", "赵敏", "钱六", "华信")],
}
EXE = Path(sys.executable).parent / "paisai"


def run(database: Path, *args, env: dict | None = None) -> subprocess.CompletedProcess:
    """`paisai ARGS` as an organizer runs it: the installed command, a process of its own."""
    return subprocess.run([str(EXE), *map(str, args), "--db", str(database)],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, **ENV, **(env or {})})


def within(database: Path, *args) -> subprocess.CompletedProcess:
    """`paisai ARGS` through the same `main` in this process, its exit code and words kept
    as a process's: where a test is about what a command did or said, not about its process
    (a process each costs ~1 s of CPU; `run` keeps a process where the process matters)."""
    argv = [*map(str, args), "--db", str(database)]
    with patch.dict(os.environ, ENV), redirect_stdout(io.StringIO()) as said, \
            redirect_stderr(io.StringIO()) as told:
        code = main(argv)
    return subprocess.CompletedProcess(["paisai", *argv], code, said.getvalue(),
                                       told.getvalue())


def setup(database: Path, *args) -> int:
    """The organizers' steps before the ones under test, through the same `main` in this
    process (a process each would cost the suite minutes on a loaded machine)."""
    return within(database, *args).returncode


@pytest.fixture(scope="module")
def store():
    server = Store()
    server.start()
    server.client().create_bucket(Bucket="archive")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def laptops(tmp_path_factory) -> dict[str, Path]:
    """Each event on its own organizer's database: registration, round 1 (A1 beats A2
    10–8, A4 beats A3 A–9), a penalty of 1 match point to A4 in e2."""
    made = {}
    for number, (event_id, rows) in enumerate(EVENTS.items(), start=1):
        folder = tmp_path_factory.mktemp(event_id)
        database = folder / "laptop.duckdb"
        assert setup(database, "event", "create", "--id", event_id, "--name",
                     f"联赛第{number}站", "--ruleset", "suzhou-2025", "--date",
                     f"2025-0{number}-10") == 0
        write_csv(folder / "entries.csv", [ENTRY_HEADER, *[[t, f"{t}队", a, b, u]
                                                            for t, a, b, u in rows]])
        write_csv(folder / "r1.csv", [RESULT_HEADER, [1, 1, "A1", "A2", "10", "8"],
                                      [1, 2, "A3", "A4", "9", "A"]])
        for sheet in ("entries.csv", "r1.csv"):
            assert setup(database, "ingest", "--event", event_id, folder / sheet) == 0
        if event_id == "e2":
            write_csv(folder / "pen.csv", [["轮次", "队号", "扣分项目", "扣分", "原因"],
                                           [1, "A4", "积分", 1, "迟到"]])
            assert setup(database, "ingest", "--event", event_id, folder / "pen.csv") == 0
        made[event_id] = database
    return made


def _export(laptops, store, event_id: str, prefix: str) -> None:
    assert setup(laptops[event_id], "event", "export", "--event", event_id, "--to",
                 f"s3://archive/{prefix}", "--endpoint-url", store.endpoint) == 0


def _sync(database: Path, store, prefix: str, process: bool = False
          ) -> subprocess.CompletedProcess:
    return (run if process else within)(database, "history", "sync", "--from",
                                        f"s3://archive/{prefix}", "--endpoint-url",
                                        store.endpoint)


def _ids(database: Path) -> dict[tuple[str, str, int], str]:
    with db.reading(database) as con:
        return {(e, t, s): p for e, t, s, p in db.rows(
            con, "select event_id, team_no, slot, player_id from player_map")}


def test_an_archive_synced_in_two_orders_gives_the_same_people_and_ids(laptops, store,
                                                                        tmp_path):
    for event_id in ("e1", "e2", "e3", "e4"):
        _export(laptops, store, event_id, "2025")
    files = store.client().list_objects_v2(Bucket="archive", Prefix="2025/e2/")["Contents"]
    assert sorted(o["Key"] for o in files) == sorted(
        f"2025/e2/{n}" for n in ("manifest.json", "teams.parquet", "players.parquet",
                                 "results.parquet", "penalties.parquet", "rankings.parquet",
                                 "awards.parquet", "lots.parquet"))
    manifest = json.loads(store.client().get_object(
        Bucket="archive", Key="2025/e2/manifest.json")["Body"].read())
    assert manifest["format_version"] == 2 and manifest["event"]["id"] == "e2"
    assert manifest["ruleset"]["name"] == "suzhou-2025" and manifest["paisai_version"]
    assert len(manifest["files"]["results.parquet"]["sha256"]) == 64

    whole = tmp_path / "whole.duckdb"  # everything at once
    done = _sync(whole, store, "2025", process=True)  # as the association runs it
    assert done.returncode == 0 and "已导入 imported 4" in done.stdout, done.stderr
    again = _sync(whole, store, "2025")  # each bundle once
    assert again.returncode == 0 and "imported 0" in again.stdout and "already held 4" in \
        again.stdout

    late = tmp_path / "late.duckdb"  # the later events first, the earlier ones after
    for event_id in ("e4", "e3"):
        _export(laptops, store, event_id, "late")
    assert _sync(late, store, "late").returncode == 0
    for event_id in ("e2", "e1"):
        _export(laptops, store, event_id, "late")
    assert _sync(late, store, "late").returncode == 0
    assert _ids(whole) == _ids(late)
    ids = _ids(whole)
    # who is who, by hand: the two 王伟 are two people, 李明 one person across his move
    assert ids[("e1", "A1", 1)] == ids[("e2", "A1", 1)] == ids[("e4", "A1", 1)]
    assert ids[("e1", "A2", 1)] == ids[("e2", "A3", 1)] == ids[("e3", "A2", 1)]
    assert ids[("e1", "A1", 1)] != ids[("e1", "A2", 1)]
    assert ids[("e1", "A3", 1)] == ids[("e2", "A2", 1)] == ids[("e4", "A2", 1)]
    with db.reading(late) as con:
        assert db.scalar(con, "select count(*) from synced_bundles") == 4
        assert db.rows(con, "select ruleset_name from events group by all") == \
            [("suzhou-2025",)]


def test_the_associations_commands_read_a_database_built_by_sync(laptops, store, tmp_path):
    for event_id in EVENTS:
        _export(laptops, store, event_id, "reads")
    association = tmp_path / "association.duckdb"
    assert _sync(association, store, "reads").returncode == 0
    players = within(association, "players", "--format", "csv")
    assert players.returncode == 0, players.stderr
    listed = read_csv_output(players.stdout)
    # 10 people: 王伟 ×2, 周一, 孙五, 李明, 吴二, 赵敏, 钱六, 郑七, 冯八 — and nobody else
    assert len(listed) == 10
    profile = within(association, "player", "李明", "--format", "json")
    assert profile.returncode == 0 and "华信" in profile.stdout, profile.stderr
    ratings = within(association, "ratings", "--format", "csv")
    assert ratings.returncode == 0 and len(read_csv_output(ratings.stdout)) == 10
    compare = within(association, "compare", "e1", "e4", "--format", "csv")
    assert compare.returncode == 0, compare.stderr
    # the penalty travelled with e2: A4 (A–9 winner) has 3 − 1 = 2 match points there
    standings = within(association, "standings", "--event", "e2", "--format", "csv")
    by_team = {r["team_no"]: r for r in read_csv_output(standings.stdout)}
    assert float(by_team["A4"]["match_points"]) == 2 and float(by_team["A1"]["match_points"]) \
        == 3


def test_a_tampered_bundle_is_refused_naming_the_file_with_nothing_stored(laptops, store,
                                                                          tmp_path):
    for event_id in ("e1", "e2"):
        _export(laptops, store, event_id, "tampered")
    s3 = store.client()
    key = "tampered/e2/results.parquet"
    frame = pl.read_parquet(s3.get_object(Bucket="archive", Key=key)["Body"].read())
    changed = tmp_path / "results.parquet"
    frame.with_columns(pl.when(pl.col("table_no") == 1).then(15).otherwise(pl.col("ns_level"))
                       .alias("ns_level")).write_parquet(changed)
    s3.put_object(Bucket="archive", Key=key, Body=changed.read_bytes())
    association = tmp_path / "a.duckdb"
    done = _sync(association, store, "tampered", process=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "tampered/e2/results.parquet" in done.stderr and "SHA-256" in done.stderr
    with db.reading(association) as con:
        assert db.rows(con, "select event_id from events") == [("e1",)]
        assert db.rows(con, "select event_id from synced_bundles") == [("e1",)]
        assert db.scalar(con, "select count(*) from results where event_id = 'e2'") == 0
        assert db.scalar(con, "select count(*) from teams where event_id = 'e2'") == 0


def test_a_bundle_of_another_format_is_read_or_refused_in_words(laptops, tmp_path):
    archive = tmp_path / "archive"
    assert within(laptops["e1"], "event", "export", "--event", "e1", "--to",
               archive).returncode == 0
    manifest = archive / "e1" / "manifest.json"
    written = json.loads(manifest.read_text(encoding="utf-8"))
    manifest.write_text(json.dumps({**written, "format_version": 3,
                                    "paisai_version": "9.0"}), encoding="utf-8")
    association = tmp_path / "a.duckdb"
    done = within(association, "history", "sync", "--from", archive)
    assert done.returncode == 2 and "较新的 paisai 9.0" in done.stderr and "upgrade" in \
        done.stderr
    manifest.write_text(json.dumps({**written, "format_version": 0}), encoding="utf-8")
    done = within(association, "history", "sync", "--from", archive)
    assert done.returncode == 2 and "过旧" in done.stderr
    for malformed in ("1", None):  # a string, or no version at all: said as such
        manifest.write_text(json.dumps({**written, "format_version": malformed}),
                            encoding="utf-8")
        done = within(association, "history", "sync", "--from", archive)
        assert done.returncode == 2 and "format_version is missing or malformed" in \
            done.stderr and "newer" not in done.stderr, done.stderr
    # format 1 (an earlier paisai: its id the event's id and the files' hashes) is read
    hashes = {n: f["sha256"] for n, f in written["files"].items()}
    first_id = hashlib.sha256(json.dumps({"event": "e1", "files": hashes},
                                         sort_keys=True).encode()).hexdigest()
    manifest.write_text(json.dumps({**written, "format_version": 1, "bundle_id": first_id}),
                        encoding="utf-8")
    done = within(association, "history", "sync", "--from", archive)
    assert done.returncode == 0 and "imported 1" in done.stdout, done.stderr


def test_a_bundle_whose_sheets_are_refused_leaves_the_others_imported(laptops, tmp_path):
    """A bundle true to its manifest whose results name a team it never registered (a
    bundle written by another tool): refused with its event and the problem, and only it —
    the events stored with it in one transaction are stored again without it."""
    archive = tmp_path / "archive"
    for event_id in ("e1", "e2"):
        assert setup(laptops[event_id], "event", "export", "--event", event_id, "--to",
                     archive) == 0
    shutil.copytree(archive / "e1", archive / "e0")
    results = pl.read_parquet(archive / "e0" / "results.parquet")
    results.with_columns(pl.lit("Z9").alias("ns_team")).head(1).write_parquet(
        archive / "e0" / "results.parquet")
    _reseal(archive / "e0", event={"id": "e0", "date": "2025-01-01"})
    association = tmp_path / "a.duckdb"
    done = within(association, "history", "sync", "--from", archive)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{archive / 'e0'}" in done.stderr and "Z9" in done.stderr, done.stderr
    assert "imported 2" in done.stdout
    with db.reading(association) as con:
        assert db.rows(con, "select event_id from events order by 1") == [("e1",), ("e2",)]
        assert db.rows(con, "select event_id from synced_bundles order by 1") == [("e1",),
                                                                                  ("e2",)]


def _reseal(folder: Path, event: dict | None = None, toml: tuple[str, str] | None = None
            ) -> None:
    """The bundle's manifest written again true to its files, as another tool would write
    it: every hash, size and row count, the event's fields in `event`, the ruleset's text
    with `toml` = (old, new) replaced, and the bundle id of all that."""
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest["event"] = {**manifest["event"], **(event or {})}
    if toml:
        assert toml[0] in manifest["ruleset"]["toml"]
        manifest["ruleset"]["toml"] = manifest["ruleset"]["toml"].replace(*toml)
    for name in manifest["files"]:
        data = (folder / name).read_bytes()
        manifest["files"][name] = {"sha256": hashlib.sha256(data).hexdigest(),
                                   "bytes": len(data),
                                   "rows": pl.read_parquet(folder / name).height}
    manifest["bundle_id"] = bundle_id(manifest["event"], manifest["ruleset"],
                                      {n: f["sha256"] for n, f in manifest["files"].items()})
    path.write_text(json.dumps(manifest, ensure_ascii=False), encoding="utf-8")


def _edited(manifest: dict, field: str):
    """The manifest with one field edited by hand (the bundle id left as exported)."""
    edited = json.loads(json.dumps(manifest))
    if field == "files.rows":
        edited["files"]["teams.parquet"]["rows"] = 99
    elif field == "ruleset":
        edited["ruleset"]["toml"] = edited["ruleset"]["toml"] + "\n# edited\n"
    elif field == "bundle_id":
        edited["bundle_id"] = "f" * 64
    else:
        part, key = field.split(".")
        edited[part][key] = {"name": "假赛事", "date": "2020-01-01", "id": "other"}[key]
    return edited


def test_a_manifest_edited_by_hand_is_refused_naming_it_with_nothing_stored(laptops,
                                                                           tmp_path):
    """Acceptance of #54: each field of the manifest edited alone — the event's name, date
    or id, a file's rows, the ruleset, the bundle id — is refused, naming manifest.json."""
    archive = tmp_path / "archive"
    assert setup(laptops["e1"], "event", "export", "--event", "e1", "--to", archive) == 0
    written = json.loads((archive / "e1" / "manifest.json").read_text(encoding="utf-8"))
    for field in ("event.name", "event.date", "event.id", "files.rows", "ruleset",
                  "bundle_id"):
        (archive / "e1" / "manifest.json").write_text(
            json.dumps(_edited(written, field), ensure_ascii=False), encoding="utf-8")
        association = tmp_path / f"{field}.duckdb"
        done = within(association, "history", "sync", "--from", archive)
        assert done.returncode == 2 and "Traceback" not in done.stderr, (field, done.stderr)
        assert f"{archive / 'e1' / 'manifest.json'}" in done.stderr, (field, done.stderr)
        assert "imported 0" in done.stdout, (field, done.stdout)
        with db.reading(association) as con:
            assert db.scalar(con, "select count(*) from events") == 0, field


def test_a_resealed_bundle_is_refused_when_its_ranking_or_folder_disagrees(laptops,
                                                                          tmp_path):
    """A manifest written again true to its files (a tool, or a hand, that knows the
    format): a ruleset that ranks otherwise than the one exported makes another ranking than
    the bundle carries — refused naming rankings.parquet and the first team whose place
    differs; a bundle whose manifest names another event than its folder — refused."""
    archive = tmp_path / "archive"
    assert setup(laptops["e2"], "event", "export", "--event", "e2", "--to", archive) == 0
    shutil.copytree(archive / "e2", tmp_path / "original")
    # e2 after round 1, by hand (win 3, level-difference score 13 ± the difference): A1 beat
    # A2 10–8 (3 points, 15), A4 beat A3 A–9 (3 − 1 penalty = 2 points, 18), A2 (0, 11),
    # A3 (0, 8): A1 1st, A4 2nd. Ranked by the level-difference score first, A4 is 1st and
    # A1 2nd: the bundle's first team, A1, is where the two rankings part.
    _reseal(archive / "e2", toml=('interim_keys = ["match_points", ', 'interim_keys = ['))
    association = tmp_path / "a.duckdb"
    done = within(association, "history", "sync", "--from", archive)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{archive / 'e2' / 'rankings.parquet'}" in done.stderr, done.stderr
    assert "(A1: 1 in the bundle, 2 made again)" in done.stderr, done.stderr
    assert "imported 0" in done.stdout
    with db.reading(association) as con:
        assert db.scalar(con, "select count(*) from events") == 0
        assert db.scalar(con, "select count(*) from teams") == 0

    shutil.rmtree(archive / "e2")
    shutil.copytree(tmp_path / "original", archive / "e9")
    _reseal(archive / "e9", event={"id": "e3"})
    done = within(association, "history", "sync", "--from", archive)
    assert done.returncode == 2 and "the bundle's folder is e9" in done.stderr, done.stderr
    assert "imported 0" in done.stdout


def test_byes_and_withdrawals_travel_so_the_synced_ranking_is_the_organizers(tmp_path):
    """Acceptance of #54: five teams, the pairing's bye in round 1, a team withdrawn after
    round 1 — the association's standings of the synced event are the organizer's, the bye
    and the withdrawal included."""
    laptop = tmp_path / "laptop.duckdb"
    assert setup(laptop, "event", "create", "--id", "odd", "--name", "五队赛", "--ruleset",
                 "suzhou-2025", "--date", "2025-06-01") == 0
    write_csv(tmp_path / "entries.csv", [ENTRY_HEADER, *[
        [f"A{n}", f"A{n}队", f"甲{n}", f"乙{n}", "恒通"] for n in range(1, 6)]])
    assert setup(laptop, "ingest", "--event", "odd", tmp_path / "entries.csv") == 0
    assert setup(laptop, "pair", "--event", "odd", "--round", "1") == 0
    with db.reading(laptop) as con:
        tables = db.rows(con, "select table_no, ew_team, ns_team from pairings where "
                              "event_id = 'odd' and round = 1 and ns_team is not null "
                              "order by table_no")
        bye, = db.rows(con, "select ew_team from pairings where event_id = 'odd' and "
                            "round = 1 and ns_team is null")[0]
    assert len(tables) == 2  # four teams at two tables, the fifth has the bye
    write_csv(tmp_path / "r1.csv", [RESULT_HEADER, *[[1, t, ew, ns, "10", "8"]
                                                     for t, ew, ns in tables]])
    assert setup(laptop, "ingest", "--event", "odd", tmp_path / "r1.csv") == 0
    gone = tables[0][2]  # a loser of round 1 withdraws
    assert setup(laptop, "withdraw", "--event", "odd", gone, "--after-round", "1") == 0
    archive = tmp_path / "archive"
    assert setup(laptop, "event", "export", "--event", "odd", "--to", archive) == 0
    assert (archive / "odd" / "byes.parquet").is_file()

    association = tmp_path / "association.duckdb"
    done = within(association, "history", "sync", "--from", archive)
    assert done.returncode == 0 and "imported 1" in done.stdout, done.stderr
    theirs = within(laptop, "standings", "--event", "odd", "--format", "csv")
    ours = within(association, "standings", "--event", "odd", "--format", "csv")
    assert ours.returncode == 0 and ours.stdout == theirs.stdout, (theirs.stdout, ours.stdout)
    by_team = {r["team_no"]: r for r in read_csv_output(ours.stdout)}
    # the bye counts as a win (suzhou-2025: bye = "win", 3 points, level difference 3)
    assert float(by_team[bye]["match_points"]) == 3
    assert "withdrawn" in ours.stdout and gone in ours.stdout


def test_an_upload_going_on_a_mistyped_prefix_and_one_bundles_address(laptops, store,
                                                                       tmp_path):
    """A bundle without its manifest yet (an organizer's upload going on) is passed over
    for next time, on a store as in a folder, without failing the sync; a prefix with
    nothing is said to be empty (a typo?), exit 2; the address of one bundle syncs it; the
    syncs are in paisai log."""
    _export(laptops, store, "e1", "going")
    _export(laptops, store, "e2", "going")
    store.client().delete_object(Bucket="archive", Key="going/e2/manifest.json")
    association = tmp_path / "a.duckdb"
    done = _sync(association, store, "going")
    assert done.returncode == 0 and "imported 1 " in done.stdout + " ", done.stdout
    assert "s3://archive/going/e2" in done.stderr and "manifest.json" in done.stderr
    assert "later 1" in done.stdout
    log = oplog.log_path(association).read_text(encoding="utf-8")
    assert "bundles synced" in log and "e1" in log

    folder = tmp_path / "archive"
    assert setup(laptops["e3"], "event", "export", "--event", "e3", "--to", folder) == 0
    assert setup(laptops["e4"], "event", "export", "--event", "e4", "--to", folder) == 0
    (folder / "e4" / "manifest.json").unlink()
    done = within(tmp_path / "f.duckdb", "history", "sync", "--from", folder)
    assert done.returncode == 0 and "later 1" in done.stdout and str(folder / "e4") in \
        done.stderr, (done.stdout, done.stderr)

    typo = _sync(tmp_path / "t.duckdb", store, "nosuchprefix")
    assert typo.returncode == 2 and "no bundles at this address" in typo.stderr
    assert "Traceback" not in typo.stderr

    # the bucket itself (one level above the seasons): refused, not "later" for ever
    high = within(tmp_path / "h.duckdb", "history", "sync", "--from", "s3://archive",
               "--endpoint-url", store.endpoint)
    assert high.returncode == 2 and "folders of folders" in high.stderr, high.stderr
    one = within(tmp_path / "one.duckdb", "history", "sync", "--from", "s3://archive/going/e1",
              "--endpoint-url", store.endpoint)
    assert one.returncode == 0 and "bundle(s): e1;" in one.stdout, (one.stdout, one.stderr)


def test_exporting_an_event_that_has_not_ended_says_so(laptops, tmp_path):
    """suzhou-2025 plans 3 rounds; the laptops' events have played 1."""
    done = run(laptops["e1"], "event", "export", "--event", "e1", "--to", tmp_path / "x")
    assert done.returncode == 0 and "only 1 of 3 rounds have results" in done.stderr
