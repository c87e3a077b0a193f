"""Issue 54's acceptance of the publish side: the remembered site address kept, a folder's
count honest, addresses that are no store refused, a bucket prefix checked as a folder is,
`--full` restoring a page deleted by hand, `watch` saying a failed publish as such and
trying it again, and the ratings table's last header in Chinese."""

from __future__ import annotations

import json
import time

import pytest
from conftest import RESULT_HEADER, write_csv
from s3local import ENV

from pipeline.base import db
from pipeline.publishing.publish import team_file

SITE = "s3://hall/2026/e"



def _publish(paisai, store, *extra, event="e", to=SITE, env=None):
    return paisai("publish", "--event", event, "--to", to, "--endpoint-url", store.endpoint,
                  *extra, env={**ENV, **(env or {})})


def _keys(store, prefix="2026/e/") -> set[str]:
    listed = store.client().list_objects_v2(Bucket="hall", Prefix=prefix)
    return {o["Key"].removeprefix(prefix) for o in listed.get("Contents", [])}


def _remembered_base_url(db_file, event="e"):
    with db.reading(db_file) as con:
        return db.rows(con, "select base_url from publish_targets where event_id = ?",
                       [event])[0][0]


# 1. the remembered site address ---------------------------------------------------------

def test_a_second_publish_without_base_url_keeps_the_address_and_the_qr_page(
        cli, event_with_results, paisai_here, store, bucket, db_file, tmp_path):
    assert _publish(paisai_here, store, "--base-url", "https://cdn.example/e/").code == 0
    assert "qr.html" in _keys(store)
    again = _publish(paisai_here, store)
    assert again.code == 0, again.err
    assert _remembered_base_url(db_file) == "https://cdn.example/e/"
    assert "qr.html" in _keys(store) and "0 个删除 deleted" in again.out
    assert "https://cdn.example/e/" in again.out  # said that it was kept
    assert cli("pair", "--event", "e").code == 0
    printout = tmp_path / "p.html"
    assert cli("export", "pairings", "--event", "e", "--round", "2", "--out",
               printout).code == 0
    assert "https://cdn.example/e/" in printout.read_text(encoding="utf-8")


def test_a_folder_keeps_its_address_and_counts_a_removed_file(cli, event_with_results,
                                                              tmp_path, db_file):
    site = tmp_path / "site"
    assert cli("publish", "--event", "e", "--out", site, "--base-url",
               "http://hall.example/e/").code == 0
    run = cli("publish", "--event", "e", "--out", site)
    assert run.code == 0 and (site / "qr.html").is_file()
    assert _remembered_base_url(db_file) == "http://hall.example/e/"
    assert "0 个文件更新或删除" in run.out  # nothing changed, nothing removed
    # a page the last publish listed that this one no longer writes (a team number since
    # corrected): removed, and counted
    (site / "teams" / "OLD.html").write_text("old", encoding="utf-8")
    with (site / ".paisai-site").open("a", encoding="utf-8") as marker:
        marker.write("0123\tteams/OLD.html\n")
    run = cli("publish", "--event", "e", "--out", site)
    assert run.code == 0 and not (site / "teams" / "OLD.html").exists()
    assert "1 个文件更新或删除" in run.out, run.out


# 4. an address that is no store ----------------------------------------------------------

@pytest.mark.parametrize("to", ["https://site/x", "s3:/site/x", "oss://hall/x", "s3:site/x",
                                "oss:hall/x", "s3//site/x"])
def test_an_address_that_is_not_s3_is_refused_and_no_folder_made(cli, event16, tmp_path,
                                                                  monkeypatch, to):
    monkeypatch.chdir(tmp_path)
    before = set(tmp_path.iterdir())
    run = cli("publish", "--event", "e", "--to", to)
    assert run.code == 2, run.out + run.err
    assert "s3://" in run.err and "--endpoint-url" in run.err and "不支持的地址" in run.err
    assert "Traceback" not in run.err
    assert set(tmp_path.iterdir()) == before


def test_an_export_to_ftp_is_refused(cli, event16, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = cli("event", "export", "--event", "e", "--to", "ftp://x/y")
    assert run.code == 2 and "不支持的地址" in run.err, run.err
    assert not (tmp_path / "ftp:").exists()


def test_a_drive_letter_is_still_a_folder():
    from pipeline.publishing.objectstore import looks_like_url

    assert not looks_like_url("C:/sites/e") and not looks_like_url("D:\\sites")


# 5. a prefix that is not this event's site -----------------------------------------------

def test_a_prefix_of_someone_elses_files_is_refused(cli, event16, paisai, store, bucket):
    put = store.client().put_object
    put(Bucket="hall", Key="2026/e/index.html", Body=b"<h1>the association</h1>")
    put(Bucket="hall", Key="2026/e/logo.png", Body=b"png")
    store.forget()
    run = _publish(paisai, store)
    assert run.code == 2, run.out + run.err
    assert "logo.png" in run.err and "不是 paisai 发布" in run.err
    assert store.puts() == [] and not [m for m, _ in store.requests]
    body = store.client().get_object(Bucket="hall", Key="2026/e/index.html")["Body"].read()
    assert body == b"<h1>the association</h1>"


def test_another_events_prefix_is_refused(cli, event16, paisai_here, store, bucket, tmp_path):
    assert _publish(paisai_here, store).code == 0
    live = _keys(store)
    assert cli("event", "create", "--id", "f", "--name", "另一赛", "--ruleset",
               "suzhou-2025").code == 0
    store.forget()
    run = _publish(paisai_here, store, event="f")
    assert run.code == 2, run.out + run.err
    assert "赛事 e 的网站" in run.err and "event e" in run.err
    assert store.requests == [] and _keys(store) == live
    assert _publish(paisai_here, store, event="f", to="s3://hall/2026/f").code == 0  # its own


def test_a_first_publish_that_broke_off_is_still_paisais(cli, event16, paisai, store,
                                                         bucket):
    store.full_after = 3  # three pages in, then full: no manifest written
    assert _publish(paisai, store).code == 1
    store.full_after = None
    assert ".paisai-site.json" not in _keys(store) and _keys(store)
    run = _publish(paisai, store)
    assert run.code == 0, run.err


# 6. a page deleted from the bucket by hand -------------------------------------------------

def test_full_sends_every_file_again(cli, event16, paisai_here, store, bucket):
    assert _publish(paisai_here, store).code == 0
    store.client().delete_object(Bucket="hall", Key=f"2026/e/{team_file('A1')}")
    store.forget()
    assert _publish(paisai_here, store).code == 0  # the manifest still lists it: not sent
    assert team_file("A1") not in _keys(store) and store.puts() == []
    run = _publish(paisai_here, store, "--full")
    assert run.code == 0, run.err
    assert team_file("A1") in _keys(store)
    listed = json.loads(store.client().get_object(
        Bucket="hall", Key="2026/e/.paisai-site.json")["Body"].read())["files"]
    assert len(store.puts()) == len(listed) + 1  # every file, then the manifest
    assert "0 个未变 unchanged" in run.out


# 2. watch: a sheet stored, a publish failed, tried again -----------------------------------

def test_watch_says_stored_but_not_published_and_publishes_once_the_store_is_back(
        cli, event16, paisai_here, store, bucket, tmp_path, db_file, monkeypatch):
    from pipeline.operations.watch import Owed, scan
    from pipeline.publishing import remote

    assert _publish(paisai_here, store).code == 0
    assert cli("pair", "--event", "e").code == 0
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(remote, "RETRY_SECONDS", 0.2)
    folder = tmp_path / "in"
    folder.mkdir()
    write_csv(folder / "fix3e.csv", [RESULT_HEADER, *[[1, t, "", "", "10", "8"]
                                                      for t in range(1, 9)]])
    seen, done, owed, log = {}, {}, Owed(), []
    assert scan(db_file, "e", folder, seen, log.append, done, owed) == 0  # not yet stable
    store.full_after = 0  # the bucket is full
    assert scan(db_file, "e", folder, seen, log.append, done, owed) == 1
    said = "\n".join(log)
    assert "已导入 stored fix3e.csv" in said and "失败 failed" not in said, said
    assert "成绩已保存，但网站未更新" in said and "已满" in said and "重试" in said, said
    assert cli("standings", "--event", "e", "--format", "csv").out.count("\n") > 1

    store.full_after = None  # the store is back: no new sheet, yet the next scan publishes
    log.clear()
    ends = time.monotonic() + 30
    while not any("网站已更新" in line for line in log) and time.monotonic() < ends:
        time.sleep(0.1)
        scan(db_file, "e", folder, seen, log.append, done, owed)
    assert any("网站已更新" in line for line in log), log
    index = store.client().get_object(Bucket="hall", Key="2026/e/index.html")["Body"].read()
    assert "第 1 轮后排名" in index.decode()
    log.clear()
    scan(db_file, "e", folder, seen, log.append, done, owed)
    assert log == []  # owed nothing more


def test_one_back_off_for_the_console_and_watch():
    from pipeline.publishing.remote import RETRY_MOST, RETRY_SECONDS, retry_after

    assert retry_after(1) == RETRY_SECONDS and retry_after(2) == 2 * RETRY_SECONDS
    assert retry_after(50) == RETRY_MOST


# 7. the ratings table's headers -------------------------------------------------------------

def test_the_ratings_table_says_inactive_in_chinese_and_csv_keeps_the_column(cli, tmp_path):
    assert cli("event", "create", "--id", "old", "--name", "旧赛", "--ruleset", "suzhou-2025",
               "--date", "2020-01-05").code == 0
    teams = [["队号", "队名", "队员1", "队员2", "单位"], ["A1", "x", "甲", "乙", "u"],
             ["A2", "y", "丙", "丁", "v"]]
    assert cli("ingest", "--event", "old", write_csv(tmp_path / "t.csv", teams)).code == 0
    assert cli("ingest", "--event", "old", write_csv(
        tmp_path / "r.csv", [RESULT_HEADER, [1, 1, "A1", "A2", "10", "6"]])).code == 0
    table = cli("ratings").out
    header = next(line for line in table.splitlines() if "评分" in line and "暂定" in line)
    assert "不活跃" in header and "inactive" not in header
    csv_head = cli("ratings", "--format", "csv").out.splitlines()[0]
    assert csv_head.lstrip("\ufeff").split(",")[-1] == "inactive"


def test_a_large_sites_old_version_is_removed_after_the_swap_by_a_process_of_its_own(
        cli, event_with_results, tmp_path, monkeypatch):
    """Past LARGE_SITE files the previous version is removed by a remover process once the
    new site is in place: the new site is whole at once, and the old one goes away."""
    from pipeline.publishing import publish

    monkeypatch.setattr(publish, "LARGE_SITE", 0)  # this small site counts as large
    started = []
    real = publish.remove_later
    monkeypatch.setattr(publish, "remove_later", lambda folder: (started.append(folder),
                                                                 real(folder)))
    site = tmp_path / "site"
    assert cli("publish", "--event", "e", "--out", site).code == 0
    assert started == []  # nothing published before: nothing to remove
    (site / "teams" / "OLD.html").write_text("old", encoding="utf-8")
    with (site / ".paisai-site").open("a", encoding="utf-8") as marker:
        marker.write("0123\tteams/OLD.html\n")
    run = cli("publish", "--event", "e", "--out", site)
    assert run.code == 0 and "1 个文件更新或删除" in run.out, run.out
    assert len(started) == 1 and started[0].parent == tmp_path
    assert (site / "index.html").is_file() and not (site / "teams" / "OLD.html").exists()
    deadline = time.monotonic() + 30
    while started[0].exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not started[0].exists()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".site")) == []


def test_the_remover_process_is_waited_for(tmp_path, monkeypatch):
    """A long-lived process (the hall's server publishes in-process) keeps no zombie: the
    remover removes the folder and is waited for by a thread of its own."""
    import subprocess

    from pipeline.publishing import publish

    made = []
    real = subprocess.Popen

    def popen(*args, **kwargs):
        made.append(real(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(publish.subprocess, "Popen", popen)
    old = tmp_path / "old"
    (old / "teams").mkdir(parents=True)
    (old / "teams" / "A1.html").write_text("old", encoding="utf-8")
    publish.remove_later(old)
    assert len(made) == 1
    deadline = time.monotonic() + 30
    while (old.exists() or made[0].returncode is None) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not old.exists()
    assert made[0].returncode == 0  # reaped by the waiting thread (this test never waits)
