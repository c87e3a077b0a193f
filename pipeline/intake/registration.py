"""Registration as it arrives: unnumbered teams and singles, the draw (抽签), check-in and
withdrawals."""

from __future__ import annotations

import hashlib
import random
import re
import secrets

import duckdb
import polars as pl

from pipeline.base import db, oplog
from pipeline.base.errors import UsageError
from pipeline.base.names import normalize_name
from pipeline.base.order import natural_key
from pipeline.base.store import Stored, store_entries

DRAW_COLUMNS = ["team_no", "team_name", "player1", "player2", "affiliation"]


def _key(players: list[str | None], affiliation: str | None, single: bool) -> str:
    names = sorted(normalize_name(p) for p in players if p)
    text = f"{'|'.join(names)}#{normalize_name(affiliation)}#{single}"
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def _next_order(con: duckdb.DuckDBPyConnection, event_id: str) -> int:
    return int(db.scalar(con, "select coalesce(max(sheet_order), 0) from registrations "
                              "where event_id = ?", [event_id]) or 0)


def _register(con, event_id: str, rows: list[dict]) -> Stored:
    """Add waiting registrations; one already known (same people, same unit) changes nothing."""
    order = _next_order(con, event_id)
    new = unchanged = 0
    for row in rows:
        key = _key([row["player1"], row["player2"]], row["affiliation"], row["single"])
        if db.scalar(con, "select count(*) from registrations where event_id = ? and "
                          "reg_key = ?", [event_id, key]):
            unchanged += 1
            continue
        order += 1
        new += 1
        con.execute("insert into registrations values (?, ?, ?, ?, ?, ?, ?, ?, null)",
                    [event_id, key, row.get("team_name"), row["player1"], row["player2"],
                     row["affiliation"], row["single"], order])
    return Stored("entries", new, 0, unchanged)


def store_entry_rows(con, event_id: str, rows: pl.DataFrame, source: str) -> Stored:
    """Numbered teams are registered; the others wait for the draw."""
    numbered = rows.filter(pl.col("team_no").is_not_null())
    waiting = rows.filter(pl.col("team_no").is_null())
    stored = store_entries(con, event_id, numbered, source) if numbered.height else \
        Stored("entries")
    if waiting.height:
        extra = _register(con, event_id, [{**r, "single": not r["player2"]}
                                          for r in waiting.iter_rows(named=True)])
        stored = Stored("entries", stored.new + extra.new, stored.replaced,
                        stored.unchanged + extra.unchanged)
    return stored


def store_players(con, event_id: str, rows: pl.DataFrame, source: str) -> Stored:
    """One row per player: two rows with the same marker are a team, the others singles."""
    teams = []
    seen: dict[str, dict] = {}
    for row in rows.iter_rows(named=True):
        if row["pair"]:
            if row["pair"] in seen:
                first = seen.pop(row["pair"])
                teams.append({"team_name": None, "player1": first["player"],
                              "player2": row["player"],
                              "affiliation": first["affiliation"] or row["affiliation"],
                              "single": False})
            else:
                seen[row["pair"]] = row
        else:
            teams.append({"team_name": None, "player1": row["player"], "player2": None,
                          "affiliation": row["affiliation"], "single": True})
    return _register(con, event_id, teams)


def draw(con: duckdb.DuckDBPyConnection, event_id: str, prefix: str = "A",
         seed: int | None = None, in_order: bool = False,
         separate_affiliations: bool = False) -> tuple[pl.DataFrame, int, list[str]]:
    """Pair the singles, number every new team. Returns (new teams, seed, unpaired singles)."""
    if db.scalar(con, "select count(*) from pairings where event_id = ? and round = 1",
                 [event_id]):
        raise UsageError("第 1 轮已编排，不能再抽签 round 1 is paired: the draw is closed")
    if not re.fullmatch(r"[A-Za-z\u4e00-\u9fff]{0,4}", prefix):
        raise UsageError("编号前缀应为 0–4 个字母 the prefix is up to four letters")
    given = seed
    seed = secrets.randbelow(10**6) if seed is None else seed
    rng = random.Random(seed)
    waiting = db.frame(con, "select reg_key, team_name, player1, player2, affiliation, single, "
                            "sheet_order from registrations where event_id = $e and team_no "
                            "is null order by sheet_order", {"e": event_id}).to_dicts()
    singles = [r for r in waiting if r["single"]]
    teams = [{**r, "keys": [r["reg_key"]]} for r in waiting if not r["single"]]
    # the lot decides something only when partners or numbers are drawn
    drew = len(singles) > 1 or (not in_order and len(teams) + len(singles) // 2 > 1)
    if not drew:
        seed = given
    rng.shuffle(singles)
    unpaired = []
    while singles:
        first = singles.pop(0)
        if not singles:
            unpaired.append(first["player1"])
            break
        index = 0
        if separate_affiliations:
            index = next((i for i, s in enumerate(singles)
                          if normalize_name(s["affiliation"]) != normalize_name(
                              first["affiliation"])), 0)
        second = singles.pop(index)
        units = first["affiliation"] if first["affiliation"] == second["affiliation"] else \
            "、".join(u for u in (first["affiliation"], second["affiliation"]) if u)
        teams.append({"team_name": None, "player1": first["player1"],
                      "player2": second["player1"], "affiliation": units or None,
                      "sheet_order": min(first["sheet_order"], second["sheet_order"]),
                      "keys": [first["reg_key"], second["reg_key"]]})
    if in_order:
        teams.sort(key=lambda t: t["sheet_order"])
    else:
        rng.shuffle(teams)
    taken = [r[0] for r in db.rows(con, "select team_no from teams where event_id = ?",
                                   [event_id])]
    numbers = [int(m.group(1)) for t in taken
               if (m := re.fullmatch(rf"{re.escape(prefix.upper())}(\d+)", t))]
    start = max(numbers, default=0)
    new_rows = []
    for offset, team in enumerate(teams, start=1):
        team_no = f"{prefix.upper()}{start + offset}"
        name = team["team_name"] or "、".join(p for p in (team["player1"], team["player2"]) if p)
        new_rows.append({"team_no": team_no, "team_name": name, "player1": team["player1"],
                         "player2": team["player2"], "affiliation": team["affiliation"],
                         "player3": None, "player4": None})
        for key in team["keys"]:
            con.execute("update registrations set team_no = ? where event_id = ? and "
                        "reg_key = ?", [team_no, event_id, key])
    frame = pl.DataFrame(new_rows, schema=dict.fromkeys(
        [*DRAW_COLUMNS, "player3", "player4"], pl.String))
    if frame.height:
        store_entries(con, event_id, frame, "draw")
        from pipeline.history import identity  # the history's module: only when it is fed

        identity.refresh(con)  # the drawn teams' players enter the history (issue 39)
    con.execute("insert into draws (event_id, seed, prefix, in_order) values (?, ?, ?, ?)",
                [event_id, seed, prefix.upper(), in_order])
    oplog.write_on(con, event_id, "drawn", f"{frame.height} teams numbered"
                   + (f", seed {seed}" if seed is not None else ", in sheet order"))
    return frame.select(DRAW_COLUMNS).sort(pl.col("team_no").map_elements(
        lambda t: natural_key(t)[1], return_dtype=pl.Int64)), seed, unpaired


def checkin(con: duckdb.DuckDBPyConnection, event_id: str, teams: list[str], every: bool) -> int:
    if every:
        con.execute("update teams set checked_in = true where event_id = ?", [event_id])
        return int(db.scalar(con, "select count(*) from teams where event_id = ?", [event_id]))
    known = {r[0] for r in db.rows(con, "select team_no from teams where event_id = ?",
                                   [event_id])}
    unknown = [t for t in teams if t not in known]
    if unknown:
        raise UsageError(f"未报名的队号 teams not registered: {', '.join(unknown)}")
    for team in teams:
        con.execute("update teams set checked_in = true where event_id = ? and team_no = ?",
                    [event_id, team])
    oplog.write_on(con, event_id, "checked in", ", ".join(teams))
    return len(teams)


def withdraw(con: duckdb.DuckDBPyConnection, event_id: str, team: str, after_round: int,
             reason: str | None) -> None:
    if not db.scalar(con, "select count(*) from teams where event_id = ? and team_no = ?",
                     [event_id, team]):
        raise UsageError(f"未报名的队号 team not registered: {team}")
    if after_round < 0:
        raise UsageError("--after-round 不能为负 must be ≥ 0")
    paired_later = db.scalar(con, "select count(*) from pairings where event_id = ? and "
                                  "round > ? and ? in (ew_team, ns_team)",
                             [event_id, after_round, team])
    if paired_later:
        raise UsageError(f"{team} 已在第 {after_round} 轮之后被编排；请先重新编排 the team is "
                         "already paired in a later round")
    con.execute("update teams set withdrawn_after = ?, withdraw_reason = ? where event_id = ? "
                "and team_no = ?", [after_round, reason, event_id, team])
    oplog.write_on(con, event_id, "withdrawn", f"{team} after round {after_round}: {reason}")


def reinstate(con: duckdb.DuckDBPyConnection, event_id: str, team: str) -> None:
    found = db.rows(con, "select withdrawn_after from teams where event_id = ? and team_no = ?",
                    [event_id, team])
    if not found or found[0][0] is None:
        raise UsageError(f"{team} 没有退赛 the team has not withdrawn")
    later = db.scalar(con, "select coalesce(max(round), 0) from pairings where event_id = ?",
                      [event_id])
    if later > found[0][0]:
        raise UsageError("退赛后已编排了新的一轮，不能恢复 a round was paired since the "
                         "withdrawal")
    con.execute("update teams set withdrawn_after = null, withdraw_reason = null where "
                "event_id = ? and team_no = ?", [event_id, team])
    oplog.write_on(con, event_id, "reinstated", team)


def fold_unit(con: duckdb.DuckDBPyConnection, event_id: str, alias: str, unit: str) -> int:
    """One unit written two ways (昆山海官 for 昆山海关): every team and registration of the
    event under `alias` is put under `unit` — units kept apart in pairing and the meets'
    unit standings then see one unit. Returns the teams changed; in paisai log."""
    alias, unit = alias.strip(), unit.strip()
    if not alias or not unit or alias == unit:
        raise UsageError("合并单位须写 写错的=正确的 fold as ALIAS=UNIT (two different names)")
    # the teams under it, whether by the team's own unit or a player's registration (a
    # pair drawn from two registrations keeps the unit there): each counted once
    changed = db.scalar(con, """
        select count(distinct team_no) from (
            select team_no from teams where event_id = $e and affiliation = $a
            union all
            select coalesce(team_no, '#' || reg_key) from registrations
            where event_id = $e and affiliation = $a)""", {"e": event_id, "a": alias})
    if not changed:
        raise UsageError(f"本赛事没有单位“{alias}” no team of the event is under {alias!r}")
    con.execute("update teams set affiliation = ? where event_id = ? and affiliation = ?",
                [unit, event_id, alias])
    con.execute("update registrations set affiliation = ? where event_id = ? and "
                "affiliation = ?", [unit, event_id, alias])
    from pipeline.history import identity

    identity.refresh(con)
    oplog.write_on(con, event_id, "units folded", f"{alias} → {unit} ({changed} teams)")
    return int(changed)


def playing(con: duckdb.DuckDBPyConnection, event_id: str, round_no: int) -> list[str]:
    """The teams to pair in a round: not withdrawn before it; checked in, when check-in is
    used."""
    return [r[0] for r in db.rows(con, """
        select team_no from teams
        where event_id = $e
          and (withdrawn_after is null or withdrawn_after >= $r)
          and (coalesce(checked_in, false)
               or not exists (select 1 from teams t where t.event_id = $e and t.checked_in))
        """, {"e": event_id, "r": round_no})]


def unnumbered(con: duckdb.DuckDBPyConnection, event_id: str) -> int:
    """Registrations still waiting for a team number (the draw gives them one)."""
    return db.scalar(con, "select count(*) from registrations where event_id = ? and "
                          "team_no is null", [event_id]) or 0


def unnumbered_hint(count: int, event_id: str) -> str:
    return (f"有 {count} 条报名还没有队号：请运行 paisai draw --event {event_id}（按表中顺序编号："
            f"加 --in-order） {count} registration(s) have no team number yet: run paisai draw "
            f"--event {event_id} (--in-order numbers them in sheet order)")
