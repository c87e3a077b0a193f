"""A Tractor match's own sheet kept in the database (issue 42): the match's signed links and
codes per side (as a table's on `/r`), each deal entered by the recorder's side (the
preset's `tractor.recorder`), confirmed or disputed by the other side, a dispute decided by
the organizer or a referee, the match clock (`tractor.match_minutes`, started from the
sheet) or the round clock ending it, and the match stored — once both sides confirm it —
through the Tractor sheets' own path (`intake.ingest.apply_rows`: point_penalties,
tractor_deals, matches) in the same transaction. The sheet's reading is the pure
`tractorsheet`."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import time
from pathlib import Path

import duckdb
import polars as pl

from pipeline.base import db, events, oplog
from pipeline.base.errors import UsageError
from pipeline.base.events import Event
from pipeline.day import clockstore, selfreport, sheetdeals
from pipeline.day.tablesheet import STALE, stamp
from pipeline.day.tablestore import last_deal_allowed, utc_now
from pipeline.day.tractorsheet import SIDES, MatchSheet, TractorEntry, check_entry, game_rows, read

SIDE_NAMES = {"a": "A 方 side A", "b": "B 方 side B"}


def sign(secret: str, event_id: str, stage: str, match_no: int, side: str) -> str:
    message = f"{event_id}:match:{stage}:{match_no}:{side}"
    return hmac.new(secret.encode(), message.encode(), hashlib.sha256).hexdigest()[:20]


def side_code(secret: str, event_id: str, stage: str, match_no: int, side: str) -> str:
    """The 4-digit code printed beside a side's QR code, never in its link."""
    message = f"code:{event_id}:match:{stage}:{match_no}:{side}"
    digest = hmac.new(secret.encode(), message.encode(), hashlib.sha256).digest()
    return f"{int.from_bytes(digest[:4], 'big') % 10_000:04d}"


def links(database: Path, event_id: str, base_url: str, stage: str | None = None) -> pl.DataFrame:
    """Each drawn match with two teams (of one stage, or every one): both sides' links to
    the match's sheet and their codes, for the match's card."""
    with db.reading(database) as con:
        made = db.scalar(con, "select secret from event_secrets where event_id = ?", [event_id])
    with db.reading(database) if made else db.writing(database) as con:
        secret = made or selfreport.ensure_secret(con, event_id)
        found = db.rows(con, "select m.stage, m.match_no, m.team_a, m.team_b from "
                             "tractor_matches m join tractor_stages s using (event_id, stage) "
                             "where m.event_id = ? and m.team_b is not null and "
                             "(? is null or m.stage = ?) order by s.position, m.stage, m.match_no",
                        [event_id, stage, stage])
    base = f"{base_url.rstrip('/')}/k?event={event_id}"

    def url(s: str, m: int, side: str) -> str:
        from urllib.parse import quote
        return f"{base}&stage={quote(s)}&match={m}&side={side}&sig={sign(secret, event_id, s, m, side)}"

    return pl.DataFrame(
        [(s, m, a, b, url(s, m, "a"), url(s, m, "b"), side_code(secret, event_id, s, m, "a"),
          side_code(secret, event_id, s, m, "b")) for s, m, a, b in found],
        schema=["stage", "match", "team_a", "team_b", "a_url", "b_url", "a_code", "b_code"],
        orient="row")


def check_link(con: duckdb.DuckDBPyConnection, event_id: str, stage: str, match_no: int,
               signature: str, side: str) -> tuple[str, str]:
    """The match's teams, if the side's link is genuine and the event still open."""
    if side not in SIDES:
        raise UsageError("链接无效 this link is not valid")
    expected = sign(selfreport.event_secret(con, event_id), event_id, stage, match_no, side)
    if not hmac.compare_digest(expected, signature or ""):
        raise UsageError("链接无效 this link is not valid")
    if db.scalar(con, "select closed_at is not null from events where event_id = ?",
                 [event_id]):
        raise selfreport.LinkClosed("比赛已结束，链接已失效 the event is closed; the link has "
                                    "expired")
    found = db.rows(con, "select team_a, team_b from tractor_matches where event_id = ? and "
                         "stage = ? and match_no = ? and team_b is not null",
                    [event_id, stage, match_no])
    if not found:
        raise UsageError("没有这一场 no such match")
    return found[0]


def check_code(con: duckdb.DuckDBPyConnection, event_id: str, stage: str, match_no: int,
               side: str, code: str | None) -> None:
    expected = side_code(selfreport.event_secret(con, event_id), event_id, stage, match_no, side)
    if not hmac.compare_digest(expected, (code or "").strip()[:8]):
        raise selfreport.WrongCode("验证码不对：请输入本方纸条上印的 4 位验证码 the code is wrong: "
                                   "enter the 4 digits printed on your side's slip")


def stored_elsewhere(con: duckdb.DuckDBPyConnection, event_id: str, stage: str,
                     match_no: int) -> str | None:
    """What is stored for the match already (its games, or a decision), else None: the
    sheet is then read-only."""
    games = db.rows(con, "select game, a_level, b_level from tractor_games where event_id = ? "
                         "and stage = ? and match_no = ? order by game",
                    [event_id, stage, match_no])
    decided = db.rows(con, "select team_no, decision from tractor_decisions where event_id = ? "
                           "and stage = ? and match_no = ?", [event_id, stage, match_no])
    if not games and not decided:
        return None
    from pipeline.base.levels import format_level
    shown = [f"{format_level(a)}:{format_level(b)}" for _, a, b in games]
    shown += [f"{team} {decision}" for team, decision in decided]
    return " ".join(shown)


def entries(con: duckdb.DuckDBPyConnection, event_id: str, stage: str,
            match_no: int) -> list[TractorEntry]:
    return [TractorEntry(*row) for row in db.rows(
        con, "select deal, declarer, points, trump_cards, lost_by, ruled_levels, status, "
             "entered_at from tractor_sheet_deals where event_id = ? and stage = ? and "
             "match_no = ? order by deal", [event_id, stage, match_no])]


def started_at(con: duckdb.DuckDBPyConnection, event_id: str, stage: str,
               match_no: int) -> dt.datetime | None:
    return db.scalar(con, "select started_at from tractor_sheet_starts where event_id = ? and "
                          "stage = ? and match_no = ?", [event_id, stage, match_no])


def time_up(con: duckdb.DuckDBPyConnection, event: Event, stage: str,
            match_no: int) -> dt.datetime | None:
    """When the match's time is up: its own clock (`tractor.match_minutes` from its start on
    the sheet, seed 000's 1.5 h), else the round clock (seed 002: the round's last deal)."""
    minutes = event.ruleset.tractor["match_minutes"]
    if minutes:
        start = started_at(con, event.event_id, stage, match_no)
        return None if start is None else start + dt.timedelta(minutes=minutes)
    up = clockstore.load(con, event).time_up_at(time.time())
    return None if up is None else dt.datetime.fromtimestamp(up, dt.UTC).replace(tzinfo=None)


def sheet(con: duckdb.DuckDBPyConnection, event: Event, stage: str, match_no: int,
          now: dt.datetime | None = None) -> MatchSheet:
    entered = entries(con, event.event_id, stage, match_no)
    now = now or utc_now()
    up = time_up(con, event, stage, match_no)
    return read(entered, event.ruleset.tractor, event.ruleset.deals["confirm_minutes"], now,
                last_deal_allowed(event, up if up is None or up <= now else None, entered))


def takeoffs(con: duckdb.DuckDBPyConnection, event_id: str, stage: str, match_no: int) -> int:
    """How many times the referee took deals off this match's sheet (the next deal's mark)."""
    return sheetdeals.takeoffs(con, _place(event_id, stage, match_no))


def _acting(con, event_id: str, stage: str, match_no: int, signature: str, side: str,
            code: str | None) -> tuple[Event, tuple[str, str]]:
    teams = check_link(con, event_id, stage, match_no, signature, side)
    check_code(con, event_id, stage, match_no, side, code)
    found = stored_elsewhere(con, event_id, stage, match_no)
    if found is not None:
        raise selfreport.Decided(f"已裁定 decided: 本场成绩已保存 {found} the match's result is "
                                 "stored")
    return events.load(con, event_id), teams


def start(con: duckdb.DuckDBPyConnection, event_id: str, stage: str, match_no: int,
          signature: str, side: str, code: str | None) -> None:
    """The recorder starts the match's own clock (once)."""
    event, _ = _acting(con, event_id, stage, match_no, signature, side, code)
    if not event.ruleset.tractor["match_minutes"]:
        raise UsageError("本赛事按轮计时，没有每场的计时 the round clock times this event")
    if started_at(con, event_id, stage, match_no) is None:
        con.execute("insert into tractor_sheet_starts values (?, ?, ?, ?)",
                    [event_id, stage, match_no, utc_now()])


def enter(con: duckdb.DuckDBPyConnection, event_id: str, stage: str, match_no: int,
          signature: str, side: str, code: str | None, number: int, declarer: str,
          points: int, bottom: int = 0, multiplier: int = 1, trump_cards: int = 1,
          lost_by: str | None = None, ruled_levels: int = 0, seen: str | None = None) -> None:
    """The recorder's side enters the next deal: the defenders' points in play plus the
    bottom's points times its multiplier, or a deal ruled lost."""
    event, _ = _acting(con, event_id, stage, match_no, signature, side, code)
    if side != event.ruleset.tractor["recorder"]:
        raise UsageError("本方负责复查：请确认或提出异议，由对方记录 your side checks the "
                         "record: confirm or dispute; the other side enters the deals")
    total = 0 if lost_by else points + bottom * multiplier
    found = sheet(con, event, stage, match_no)
    why = check_entry(found, event.ruleset.tractor, number, declarer, points, trump_cards,
                      lost_by, ruled_levels, bottom, multiplier)
    if why:  # not the deal due (entered from another phone), a dispute, the match over
        raise UsageError(why)
    if seen and seen != stamp(found.lines, takeoffs(con, event_id, stage, match_no)):
        raise UsageError(STALE.format(unit="盘"))
    con.execute("insert into tractor_sheet_deals (event_id, stage, match_no, deal, declarer, "
                "points, bottom_points, multiplier, trump_cards, lost_by, ruled_levels, "
                "entered_side, entered_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [event_id, stage, match_no, number, declarer, total,
                 0 if lost_by else bottom, 1 if lost_by else multiplier, trump_cards, lost_by,
                 ruled_levels if lost_by else 0, side, utc_now()])


def answer(con: duckdb.DuckDBPyConnection, event_id: str, stage: str, match_no: int,
           signature: str, side: str, code: str | None, number: int, confirm: bool,
           seen: str | None = None) -> None:
    event, _ = _acting(con, event_id, stage, match_no, signature, side, code)
    if side == event.ruleset.tractor["recorder"]:
        raise UsageError("本方负责记录，由对方确认 your side enters the deals; the other "
                         "side confirms them")
    sheetdeals.answer(con, _place(event_id, stage, match_no), side, SIDE_NAMES[side], number,
                      confirm, seen)


def summary(found: MatchSheet) -> str:
    """The match's result in a line (both sides confirm the same line)."""
    from pipeline.base.levels import format_level

    result = found.result
    games = " ".join(f"{format_level(g.a_level)}:{format_level(g.b_level)}" for g in result.games)
    timed = f" 到时 time {result.time_winner.upper()}" if result.time_winner else ""
    return f"{games}{timed} → {result.winner.upper()}".strip()


def confirm_result(con: duckdb.DuckDBPyConnection, event_id: str, stage: str, match_no: int,
                   signature: str, side: str, code: str | None) -> str:
    """A side confirms the match's result as its sheet gives it: "waiting" for the other
    side, or "stored" when both have (through the Tractor sheets' path, in this
    transaction: the ruled deals, the games' deals, the clock's decision)."""
    from pipeline.intake.ingest import apply_rows

    event, teams = _acting(con, event_id, stage, match_no, signature, side, code)
    found = sheet(con, event, stage, match_no)
    if found.result is None:
        raise UsageError("还有未确认或有异议的一盘 a deal is not final yet" if found.over
                         else "本场还没有结束 the match is not over yet")
    said = summary(found)
    con.execute("insert or replace into tractor_sheet_results values (?, ?, ?, ?, ?, ?)",
                [event_id, stage, match_no, side, said, utc_now()])
    words = db.rows(con, "select summary from tractor_sheet_results where event_id = ? and "
                         "stage = ? and match_no = ?", [event_id, stage, match_no])
    if len(words) < 2 or len(set(words)) > 1:
        return "waiting"
    deals, ruled, decision = game_rows(entries(con, event_id, stage, match_no), found.result,
                                       stage, match_no, teams)
    source = f"桌上记分 match sheet {stage} {match_no}"
    reason = f"双方确认 both sides confirmed: {teams[0]} – {teams[1]} {said}"
    for kind, rows in (("point_penalties", ruled), ("tractor_deals", deals),
                       ("matches", decision)):
        if rows:
            apply_rows(con, event_id, kind, rows, source=source, reason=reason)
    oplog.write_on(con, event_id, "match sheet stored", f"{stage} match {match_no}: {said}")
    return "stored"


def decide(database: Path, event_id: str, stage: str, match_no: int, number: int, keep: bool,
           by: str = "组织者 organizer") -> None:
    """A disputed deal decided (`sheetdeals.decide`), in `paisai log` with who decided."""
    sheetdeals.decide(database, _place(event_id, stage, match_no), number, keep, by)


def _place(event_id: str, stage: str, match_no: int) -> sheetdeals.Place:
    return sheetdeals.Place("tractor_sheet_deals", "tractor_sheet_results",
                            ("stage", "match_no"), (stage, match_no), event_id,
                            f"{stage} match {match_no}", "盘")


def disputed(con: duckdb.DuckDBPyConnection, event_id: str) -> list[tuple[str, int, int]]:
    """(stage, match, deal) of every disputed deal waiting for a decision: a match whose
    games or decision are stored has nothing left to decide."""
    return db.rows(con, """
        select stage, match_no, deal from tractor_sheet_deals d where event_id = ?
          and status = 'disputed' and not exists (select 1 from tractor_games g where
          g.event_id = d.event_id and g.stage = d.stage and g.match_no = d.match_no)
          and not exists (select 1 from tractor_decisions x where x.event_id = d.event_id
          and x.stage = d.stage and x.match_no = d.match_no)
        order by 1, 2, 3""", [event_id])


def matches_in_play(con: duckdb.DuckDBPyConnection, event: Event) -> list[dict]:
    """The matches keeping their own sheet and not stored yet: teams, game, levels, games
    won, a dispute — for the bracket's page and the projector."""
    from pipeline.base.levels import format_level

    found = db.rows(con, """
        select distinct d.stage, d.match_no, m.team_a, m.team_b from tractor_sheet_deals d
        join tractor_matches m using (event_id, stage, match_no)
        where d.event_id = ? and not exists (select 1 from tractor_games g where
          g.event_id = d.event_id and g.stage = d.stage and g.match_no = d.match_no)
          and not exists (select 1 from tractor_decisions x where x.event_id = d.event_id
          and x.stage = d.stage and x.match_no = d.match_no)
        order by 1, 2""", [event.event_id])
    out = []
    for stage, match_no, a, b in found:
        shown = sheet(con, event, stage, match_no)
        out.append({"stage": stage, "match": match_no, "team_a": a, "team_b": b,
                    "game": shown.game, "a_level": format_level(shown.levels["a"]),
                    "b_level": format_level(shown.levels["b"]),
                    "games": f"{shown.wins['a']}–{shown.wins['b']}", "deals": len(shown.lines),
                    "disputed": shown.disputed is not None, "over": shown.over is not None})
    return out
