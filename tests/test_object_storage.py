"""Issue 54: the site on object storage — published to a local S3-compatible store (moto's
server on 127.0.0.1), only what changed sent again, each file with its type and caching,
index.html the last page and the manifest after it, the files of a page that is gone
deleted, a failure said in words with the index as it was."""

from __future__ import annotations

import json

from conftest import RESULT_HEADER, write_csv
from s3local import ENV

from pipeline.publishing.publish import STYLE_FILE, team_file


def _publish(paisai, store, *extra, env=None):
    return paisai("publish", "--event", "e", "--to", "s3://hall/2026/e", "--endpoint-url",
                  store.endpoint, *extra, env={**ENV, **(env or {})})


def _keys(store) -> set[str]:
    listed = store.client().list_objects_v2(Bucket="hall", Prefix="2026/e/")
    return {o["Key"].removeprefix("2026/e/") for o in listed.get("Contents", [])}


def _body(store, key: str) -> str:
    return store.client().get_object(Bucket="hall", Key=f"2026/e/{key}")["Body"].read().decode()


TEAMS = [f"A{n}" for n in range(1, 17)]
FIRST = {"style.css", STYLE_FILE, "standings.json", "pairings.html", "pairings.json",
         "teams.html", "qr.html", "index.html", *(team_file(t) for t in TEAMS)}


def test_publish_then_a_round_sends_only_what_changed(cli, event_with_results, paisai_here,
                                                      store, bucket, tmp_path):
    assert cli("pair", "--event", "e").code == 0  # round 2 paired
    run = _publish(paisai_here, store, "--base-url", "https://cdn.example/e/")
    assert run.code == 0, run.err
    puts = store.puts()
    # every file of the site once, the manifest after all of them, index.html last page
    assert {p.removeprefix("/hall/2026/e/") for p in puts} == FIRST | {".paisai-site.json"}
    assert len(puts) == len(FIRST) + 1
    assert puts[-2:] == ["/hall/2026/e/index.html", "/hall/2026/e/.paisai-site.json"]
    assert _keys(store) == FIRST | {".paisai-site.json"}

    head = store.client().head_object
    page = head(Bucket="hall", Key="2026/e/index.html")
    assert page["ContentType"] == "text/html; charset=utf-8"
    assert page["CacheControl"] == "public, max-age=30"
    data = head(Bucket="hall", Key="2026/e/standings.json")
    assert data["ContentType"] == "application/json; charset=utf-8"
    assert data["CacheControl"] == "public, max-age=30"
    asset = head(Bucket="hall", Key=f"2026/e/{STYLE_FILE}")
    assert asset["ContentType"] == "text/css; charset=utf-8"
    assert asset["CacheControl"] == "public, max-age=31536000, immutable"
    assert STYLE_FILE in _body(store, "index.html")  # pages link the hashed style sheet

    store.forget()  # nothing changed: nothing sent, not even the manifest
    assert _publish(paisai_here, store, "--base-url", "https://cdn.example/e/").code == 0
    assert store.puts() == []

    # round 2's results: every North-South side wins, so the ranking moves. Changed: the
    # ranking (index.html, standings.json), the team list (in ranking order) and every
    # team's page (a round more). Unchanged: both style sheets and round 2's pairings.
    write_csv(tmp_path / "r2.csv", [["轮次", "桌号", "东西级数", "南北级数"],
                                    *[[2, t, "8", "10"] for t in range(1, 9)]])
    assert cli("ingest", "--event", "e", tmp_path / "r2.csv").code == 0
    # a page the last publish listed that this one no longer writes (a team number since
    # corrected): deleted after the index
    old = json.loads(_body(store, ".paisai-site.json"))
    old["files"]["teams/OLD.html"] = "0" * 64
    store.client().put_object(Bucket="hall", Key="2026/e/.paisai-site.json",
                              Body=json.dumps(old).encode())
    store.client().put_object(Bucket="hall", Key="2026/e/teams/OLD.html", Body=b"old")
    store.forget()
    run = _publish(paisai_here, store)  # without --base-url: the remembered address is kept
    assert run.code == 0, run.err
    changed = {"index.html", "standings.json", "teams.html", *(team_file(t) for t in TEAMS)}
    writes = [(m, p.removeprefix("/hall/2026/e/")) for m, p in store.requests]
    assert {p for m, p in writes if m == "PUT"} == changed | {".paisai-site.json"}
    assert len([1 for m, _ in writes if m == "PUT"]) == len(changed) + 1
    # the index after every other page, the gone page deleted after it, the manifest last
    assert writes[-3][1] == "index.html" and writes[-1] == ("PUT", ".paisai-site.json")
    assert writes[-2][0] == "POST"  # DeleteObjects (a batch)
    assert "teams/OLD.html" not in _keys(store) and "qr.html" in _keys(store)
    assert "第 2 轮后排名" in _body(store, "index.html")
    manifest = json.loads(_body(store, ".paisai-site.json"))
    assert set(manifest["files"]) == FIRST
    assert "1 个删除 deleted" in run.out


def _index_state(store) -> tuple[str, str]:
    head = store.client().head_object
    return (head(Bucket="hall", Key="2026/e/index.html")["ETag"],
            head(Bucket="hall", Key="2026/e/.paisai-site.json")["ETag"])


def test_a_failed_upload_is_said_in_words_and_leaves_the_round_whole(
        cli, event_with_results, paisai, store, bucket, tmp_path):
    assert _publish(paisai, store).code == 0
    before = _index_state(store)
    assert cli("pair", "--event", "e").code == 0  # something to send

    refused = _publish(paisai, store, env={"AWS_SECRET_ACCESS_KEY": "x",
                                           "AWS_ACCESS_KEY_ID": "stolen"})
    assert refused.code == 1 and "拒绝了凭据" in refused.err and "Traceback" not in refused.err
    assert "s3://hall/2026/e" in refused.err and "stolen" not in refused.err

    store.full_after = len(store.puts()) + 3  # three pages go in, then the bucket is full
    full = _publish(paisai, store)
    assert full.code == 1 and "已满" in full.err and "Traceback" not in full.err
    assert _index_state(store) == before  # readers still see the last whole round
    store.full_after = None

    store.stop()  # no store at all: said, after the bounded retries
    down = _publish(paisai, store)
    assert down.code == 1 and "连不上对象存储" in down.err, down.err
    store.start()
    assert _index_state(store) == before

    again = _publish(paisai, store)  # the next publish sends whatever failed before
    assert again.code == 0, again.err
    assert "第 1 轮对阵" not in _body(store, "pairings.html")
    assert "第 2 轮对阵" in _body(store, "pairings.html")


def test_the_remembered_store_is_published_after_each_sheet_and_in_the_background(
        cli, event16, paisai, store, bucket, tmp_path, db_file, monkeypatch):
    """The target is remembered with its endpoint (no credential in the database): `watch`
    publishes there after a sheet; the hall's server publishes in the background, its
    failure kept in words for the console."""
    assert _publish(paisai, store).code == 0
    assert cli("pair", "--event", "e").code == 0
    folder = tmp_path / "in"
    folder.mkdir()
    write_csv(folder / "r1.csv", [RESULT_HEADER, *[[1, t, "", "", "10", "8"]
                                                   for t in range(1, 9)]])
    done = paisai("watch", "--event", "e", folder, "--once", "--interval", "0.2", env=ENV)
    assert done.code == 0 and "网站已更新" in done.out, done.out + done.err
    assert "第 1 轮后排名" in _body(store, "index.html")
    stored = db_file.read_bytes()
    assert b"paisai-test-secret" not in stored and b"paisai-test-key" not in stored
    assert cli("check").code == 0  # the remembered address and endpoint pass the checks

    from pipeline.publishing import remote, targets

    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    assert cli("pair", "--event", "e").code == 0
    found = targets.republish_soon(db_file, "e")  # returns at once
    assert found.shown == "s3://hall/2026/e"
    assert remote.wait_idle(db_file, "e", 30)
    outcome, running = remote.last_outcome(db_file, "e")
    assert outcome.ok and not running and "第 2 轮对阵" in _body(store, "pairings.html")

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "nobody")
    monkeypatch.setattr(remote, "RETRY_SECONDS", 0.05)
    targets.republish_soon(db_file, "e")
    assert remote.wait_idle(db_file, "e", 30)
    outcome, _ = remote.last_outcome(db_file, "e")
    assert not outcome.ok and "拒绝了凭据" in outcome.message


def test_an_address_that_is_no_store_is_refused_before_anything(cli, event16):
    run = cli("publish", "--event", "e", "--to", "s3://UPPER/x", "--endpoint-url",
              "http://127.0.0.1:1")
    assert run.code == 2 and "存储桶名称不合规" in run.err
    run = cli("publish", "--event", "e", "--to", "s3://ok-bucket/x", "--endpoint-url",
              "ftp://127.0.0.1")
    assert run.code == 2 and "--endpoint-url" in run.err


def test_the_console_says_a_failed_background_publish_in_words(cli, event16, paisai, store,
                                                               bucket, db_file, monkeypatch):
    from conftest import run_page

    from pipeline.publishing import remote, targets

    assert _publish(paisai, store).code == 0
    for name, value in {**ENV, "AWS_ACCESS_KEY_ID": "nobody"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(remote, "RETRY_SECONDS", 0.05)
    targets.republish_soon(db_file, "e")
    assert remote.wait_idle(db_file, "e", 30)
    monkeypatch.setenv("PAISAI_ADMIN_PASSWORD", "pw")
    at = run_page(monkeypatch, db_file, "admin", event="e")
    at.text_input[0].input("pw")
    at.button[0].click().run()
    assert not at.exception
    said = [w.value for w in at.warning]
    assert any("手机网站更新失败" in w and "拒绝了凭据" in w and "s3://hall/2026/e" in w
               for w in said), said
