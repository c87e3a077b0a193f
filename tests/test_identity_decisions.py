"""The organizer's decisions and what stays asked (issue 52, left open by the acceptance):
a stand-in beside two partnerships taking turns while the name is still one id; a split
that silences "one person under two ids?" for exactly the two ids it made, until a new
event contradicts it; a merge that silences "two people with one name?"; a split of the
events with one partner in one command. Through the real CLI; expected values by hand."""

from __future__ import annotations

import pytest
from conftest import import_event, read_csv_output

from pipeline.base import db

STAND_IN = "替补一场，同名者皆可能 a stand-in's event, either namesake's: review"
TURNS = "同名两人？两个搭档轮流出现"
SAME = "一人两号？ one person under two ids?"


def ids(database, name: str) -> dict[tuple[str, str], str]:
    """(event, team) → the id of the player called `name` there."""
    with db.reading(database) as con:
        return {(e, t): p for e, t, p in db.rows(
            con, "select event_id, team_no, player_id from player_map where name = ? "
                 "order by 1, 2", [name])}


def reviews(cli, name: str) -> dict[str, str]:
    """player_id → review of every id called `name` in `paisai players`."""
    listing = read_csv_output(cli("players", "--format", "csv").out)
    return {r["player_id"]: r["review"] or "" for r in listing if r["name"] == name}


@pytest.fixture
def turns(db_file, tmp_path):
    """play(n, partners): event e{n} on 2025-{n}-10, a 王伟 of 恒通 with each partner (A1,
    A2…), beside 赵敏/钱六 of 华信 when needed; e1–e6 already played: 王伟 with 周一 in
    e1, e3, e5 and with 孙五 in e2, e4, e6 (two lasting partnerships taking turns)."""
    def play(n: int, partners: list[str]) -> None:
        teams = [(f"A{k + 1}", "王伟", p, "恒通") for k, p in enumerate(partners)]
        import_event(db_file, tmp_path, f"e{n}", f"2025-{n:02d}-10", [
            *teams, *([("B1", "赵敏", "钱六", "华信")] if len(teams) % 2 else [])])

    for n in range(1, 7):
        play(n, ["周一" if n % 2 else "孙五"])
    return play


def test_a_stand_in_is_marked_while_the_turns_question_keeps_the_namesakes_one_id(
        turns, db_file, cli):
    """e7: a 王伟 of 恒通 with 郑七, whom neither partnership ever had, while both were
    active: the name is still one id (asked "two people with one name?"), and that seat
    could be either suspected person's — marked, and `paisai player` names it."""
    turns(7, ["郑七"])
    (one,) = set(ids(db_file, "王伟").values())
    review = reviews(cli, "王伟")[one]
    assert TURNS in review and STAND_IN in review
    profile = cli("player", one)
    assert profile.code == 0 and f"待核对 review e7 A1: {STAND_IN}" in profile.out
    with db.reading(db_file) as con:
        marked = db.rows(con, "select event_id from player_map where note = ?", [STAND_IN])
    assert marked == [("e7",)]  # only the stand-in's seat, not the partnerships'
