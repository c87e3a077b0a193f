"""The static site as the phones' channel (issue 20): remembered, re-published after every
change, and printed on the pairings."""

from __future__ import annotations

from conftest import RESULT_HEADER, write_csv


def test_the_static_site_follows_every_change_once_published(cli, event16, tmp_path,
                                                              paisai):
    """Issue 20: the static site is the phones' channel: `publish` remembers where it went,
    `watch` re-publishes after each sheet, and the printed pairings point phones to it."""
    site = tmp_path / "site"
    assert cli("publish", "--event", "e", "--out", site, "--base-url",
               "http://hall.example/e/").code == 0
    assert cli("pair", "--event", "e").code == 0
    folder = tmp_path / "in"
    folder.mkdir()
    write_csv(folder / "r1.csv", [RESULT_HEADER, *[[1, t, "", "", "10", "8"]
                                                   for t in range(1, 9)]])
    done = paisai("watch", "--event", "e", folder, "--once", "--interval", "0.2")
    assert done.code == 0 and "网站已更新" in done.out, done.out + done.err
    assert "第 1 轮后排名" in (site / "index.html").read_text(encoding="utf-8")
    printout = tmp_path / "p.html"
    assert cli("pair", "--event", "e").code == 0
    assert cli("export", "pairings", "--event", "e", "--round", "2", "--out", printout).code == 0
    text = printout.read_text(encoding="utf-8")
    assert "http://hall.example/e/" in text and "<svg" in text


def test_simulate_any_round_count(cli, tmp_path):
    """`paisai simulate` with more rounds than the preset has: the simulated event's round
    count is raised (suzhou-2025 plays 3)."""
    run = cli("simulate", "--teams", "8", "--rounds", "5", "--out", tmp_path / "sim")
    assert run.code == 0, run.err
    assert sorted(p.name for p in (tmp_path / "sim").glob("round-*.csv")) == [
        f"round-{n}.csv" for n in range(1, 6)]
