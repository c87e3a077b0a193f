"""Issue 40: a database whose history cache is empty (written by other tools, or by an
earlier version) never makes a first view wait minutes: /history ranks the events in the
background and says how far it is, the command line shows a progress bar."""

from __future__ import annotations

import time

from conftest import run_page

from bench.history import build
from pipeline.base import db
from pipeline.history import stats


def _stale_history(path) -> None:
    build(path, 40, 400, 8, 3)  # 40 events; their cached finishes then forgotten
    with db.writing(path) as con:
        con.execute("delete from event_rank_state")
        con.execute("delete from event_ranks")
    assert stats.stale_rank_count(path) == 40



def _import_next(paisai, tmp_path, players: int, rounds: int, env: dict | None = None):
    """`paisai import-event` of one more event ("next", 2030-01-05) made by the history bench."""
    from bench.history import event_folder

    sheets = event_folder(tmp_path / "next", players, teams=8, rounds=rounds, seed=5)
    return paisai("import-event", "--id", "next", "--name", "下一场", "--ruleset",
                  "suzhou-2025", "--date", "2030-01-05", sheets, **({"env": env} if env else {}))

def test_history_page_prepares_in_the_background(tmp_path, monkeypatch):
    database = tmp_path / "old.duckdb"
    _stale_history(database)
    # 40 small events rank in a blink (final_ranks.sql): the background's work made long, as
    # a thousand events' is, so the page is seen while it runs
    ranking = stats.keep_ranks_current
    monkeypatch.setattr(
        stats,
        "keep_ranks_current",
        lambda *args, **kwargs: (time.sleep(3), ranking(*args, **kwargs)),
    )
    page = run_page(monkeypatch, database, "history")
    assert not page.exception
    said = " ".join(i.value for i in page.info)
    assert "正在准备历史数据" in said and "/40 场赛事" in said
    assert page.tabs  # the page is there meanwhile, not waiting
    deadline = time.monotonic() + 120
    while stats.stale_rank_count(database) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert stats.stale_rank_count(database) == 0
    with db.reading(database) as con:
        assert db.scalar(con, "select count(distinct event_id) from event_ranks") == 40
    again = run_page(monkeypatch, database, "history")
    assert not any("正在准备历史数据" in i.value for i in again.info)


def test_the_command_line_shows_its_progress(tmp_path, paisai, db_file):
    _stale_history(db_file)
    with db.reading(db_file) as con:
        name = db.scalar(con, "select name from player_map limit 1")
    done = paisai("player", name, env={"PAISAI_PROGRESS": "1"})
    assert done.code == 0, done.err
    assert "准备历史 preparing history" in done.err and "40/40" in done.err
    assert stats.stale_rank_count(db_file) == 0


def test_import_event_leaves_everything_the_next_read_needs(tmp_path, paisai, db_file):
    """Issue 52: importing one more event into an archive whose cache is empty builds every
    event's finish then, in its transaction (the 40 others and its own in one pass, with a
    progress bar), so the next read waits for nothing."""

    _stale_history(db_file)
    done = _import_next(paisai, tmp_path, 400, rounds=3, env={"PAISAI_PROGRESS": "1"})
    assert done.code == 0, done.err
    assert "准备历史 preparing history" in done.err and "41/41" in done.err  # and its own
    assert stats.stale_rank_count(db_file) == 0
    with db.reading(db_file) as con:
        assert db.scalar(con, "select count(distinct event_id) from event_ranks") == 41
        # the history is written without a player index to build and checkpoint (038)
        assert not db.scalar(
            con, "select count(*) from duckdb_indexes() where table_name = 'rating_history'"
        )


def _fits(database) -> tuple[dict, dict]:
    with db.reading(database) as con:
        listed = {
            p: (mu, o, g)
            for p, mu, o, g in db.rows(con, "select player_id, mu, ordinal, games from ratings")
        }
        history = {
            (p, e): (mu, o)
            for p, e, mu, o in db.rows(
                con, "select player_id, event_id, mu, ordinal from rating_history"
            )
        }
    return listed, history


def test_a_stale_import_fits_the_history_ahead_as_a_recompute_does(
    tmp_path, paisai, db_file, monkeypatch
):
    """Issue 52: an archive with no stored fit (written by other tools) gets its rating
    history fitted ahead, on a second connection in a thread, up to the imported event's
    day: the import itself fits only from that day on, and ends where a full recompute
    ends (every rating and history point within 10⁻⁹ levels, every shown rating equal)."""
    import shutil
    import threading

    from pipeline.history import ratings
    from pipeline.intake.ingest import import_into, read_sources

    _stale_history(db_file)
    with db.reading(db_file) as con:
        assert not db.scalar(con, "select count(*) from rating_state")  # no stored fit
    copy = tmp_path / "copy.duckdb"
    shutil.copy(db_file, copy)
    done = _import_next(paisai, tmp_path, 400, rounds=3)
    sheets = tmp_path / "next"  # the event just imported, read again below
    assert done.code == 0, done.err
    listed, history = _fits(db_file)
    with db.writing(db_file) as con:
        ratings.recompute(con)  # every point from the first game, in this thread alone
    relisted, rehistory = _fits(db_file)
    assert listed.keys() == relisted.keys() and history.keys() == rehistory.keys()
    assert max(abs(listed[p][0] - relisted[p][0]) for p in listed) < 1e-9
    assert max(abs(history[k][0] - rehistory[k][0]) for k in history) < 1e-9
    assert all(listed[p][1:] == relisted[p][1:] for p in listed)
    assert all(history[k][1] == rehistory[k][1] for k in history)
    # the same import in process: the transaction's own thread fits two points (the new
    # event's and the list's day before it), the 28 days before it were fitted ahead
    here = []
    fit = ratings.Fit

    def counted(*args, **kwargs):
        if threading.current_thread() is threading.main_thread():
            here.append(args[1])
        return fit(*args, **kwargs)

    monkeypatch.setattr(ratings, "Fit", counted)
    with db.writing(copy) as con:
        import_into(con, "next", "下一场", "suzhou-2025", "2030-01-05", read_sources(sheets))
    assert len(here) == 2, here
    assert _fits(copy) == (listed, history)


def test_fits_ahead_that_end_early_are_taken_as_far_as_they_went(tmp_path, db_file, monkeypatch):
    """Issue 52: the import takes each point fitted ahead as it is made; when the fits ahead
    end early (here: an error at their sixth point), it takes the five made and fits the
    rest itself from the last of them, and ends where a full recompute ends."""
    import threading

    from bench.history import event_folder
    from pipeline.history import rating_model, ratings
    from pipeline.intake.ingest import import_into, read_sources

    _stale_history(db_file)
    sheets = event_folder(tmp_path / "next", 400, teams=8, rounds=3, seed=5)
    fit, ahead, here = rating_model.Fit, [], []

    def failing(*args, **kwargs):
        if threading.current_thread().name == "fits-ahead":
            ahead.append(args[1])
            if len(ahead) == 6:
                raise RuntimeError("the sixth point")
        return fit(*args, **kwargs)

    def counted(*args, **kwargs):
        here.append(args[1])
        return fit(*args, **kwargs)

    monkeypatch.setattr(rating_model, "Fit", failing)  # what the thread imports
    monkeypatch.setattr(ratings, "Fit", counted)
    with db.writing(db_file) as con:
        import_into(con, "next", "下一场", "suzhou-2025", "2030-01-05", read_sources(sheets))
    assert len(ahead) == 6 and min(here) > ahead[4]  # five taken, the rest fitted here
    listed, history = _fits(db_file)
    monkeypatch.undo()
    with db.writing(db_file) as con:
        ratings.recompute(con)
    relisted, rehistory = _fits(db_file)
    assert listed.keys() == relisted.keys() and history.keys() == rehistory.keys()
    assert max(abs(listed[p][0] - relisted[p][0]) for p in listed) < 1e-9
    assert max(abs(history[k][0] - rehistory[k][0]) for k in history) < 1e-9
    assert all(listed[p][1:] == relisted[p][1:] for p in listed)
    assert all(history[k][1] == rehistory[k][1] for k in history)


def test_an_old_player_map_is_compared_seat_by_seat_only_where_teams_were_retyped(
    tmp_path, paisai, db_file
):
    """Issue 52: a player map made by an earlier version (no fingerprints kept) is checked
    once against the teams. Only the teams whose seats are not plainly its rows are read as
    the map reads them (`identity_unplain_teams.sql`); the events found are those whose
    teams other tools changed since, and the import then ends where a rebuild of every name
    ends."""
    from pipeline.history import identity
    from pipeline.history.changed_names import unlike_map

    build(db_file, 30, 300, 8, 2)
    with db.writing(db_file) as con:
        con.execute("delete from identity_events")  # a map of an earlier version
        assert unlike_map(con).is_empty()  # nothing changed since it was made
        for sql in (  # what other tools wrote since
            "update teams set player1 = player1 || '\u200b' where event_id = 'ev3' "
            "and team_no = 'A1'",  # a zero-width space: read as the same name
            "update teams set player2 = '新名字' where event_id = 'ev4' and team_no = 'A2'",
            "update teams set member1 = 'js-7' where event_id = 'ev5' and team_no = 'A3'",
            "update teams set affiliation = '新单位' where event_id = 'ev6' and team_no = 'A4'",
            "delete from teams where event_id = 'ev9' and team_no = 'A5'",
            "update teams set player1 = '\u3000' || player1 || ' ' where event_id = 'ev11' "
            "and team_no = 'A6'",
        ):  # white space at the ends: the same name
            con.execute(sql)
        con.execute(
            "delete from player_map where event_id = 'ev9' and team_no = 'A5' and slot = 2"
        )  # a row gone too: ev9 differs either way
        assert (
            db.scalar(
                con,
                "select count(*) from (select distinct event_id from "
                f"({db.sql('identity_unplain_teams')}))",
            )
            == 6
        )
        assert sorted(unlike_map(con)["event_id"].to_list()) == ["ev4", "ev5", "ev6", "ev9"]
    done = _import_next(paisai, tmp_path, 300, rounds=2)
    assert done.code == 0, done.err
    query = (
        "select event_id, team_no, slot, name, affiliation, norm_name, player_id, "
        "member_id, base_id, visit, note from player_map order by all"
    )
    with db.reading(db_file) as con:
        imported = db.rows(con, query)
        assert db.scalar(con, "select count(*) from identity_events") == 31
    with db.writing(db_file) as con:
        identity.refresh(con, full=True)
        assert db.rows(con, query) == imported
