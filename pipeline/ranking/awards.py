"""The prize list from the ruleset's quotas (docs/rules/general.md §8)."""

from __future__ import annotations

import duckdb
import polars as pl

from pipeline.base import db
from pipeline.base.errors import UsageError
from pipeline.base.events import Event
from pipeline.ranking import rounds, scoring
from pipeline.tractor import stages
from pipeline.tractor.places import Place, without

AWARD_COLUMNS = ["award", "rank", "team_no", "team_name", "player1", "player2", "affiliation"]


def quotas(awards: dict, entries: int) -> list[tuple[str, int]]:
    """Each award with its count; the small-field counts apply below `small_field` entries.

    >>> quotas({"names": ["一等奖", "二等奖"], "counts": [2, 3], "small_field": 20,
    ...         "small_field_counts": [1, 1]}, 12)
    [('一等奖', 1), ('二等奖', 1)]
    """
    counts = awards["counts"]
    if awards["small_field"] and entries < awards["small_field"]:
        counts = awards["small_field_counts"]
    return list(zip(awards["names"], counts, strict=False))


def award_list(con: duckdb.DuckDBPyConnection, event: Event) -> pl.DataFrame:
    """Teams in ranking order take the awards in turn, as many as each quota allows. In a
    Tractor event the order comes from the bracket (`tractor_awards`). Teams that share a
    rank are marked; where a quota splits them, the note says that the ranking does not
    separate them and which key would."""
    if not event.ruleset.is_swiss:
        return tractor_awards(con, event)
    ranking = scoring.standings(con, event)
    places = []
    for name, count in quotas(event.ruleset.awards, ranking.height):
        places += [name] * count
    places = places[: ranking.height]
    prizes = ranking.head(len(places)).with_columns(
        pl.Series("award", places, dtype=pl.String))
    notes = _tie_notes(con, event, ranking, places)
    return prizes.with_columns(pl.Series("note", notes, dtype=pl.String)).select(
        *AWARD_COLUMNS, "note")


def with_member_ids(con: duckdb.DuckDBPyConnection, event_id: str,
                    prizes: pl.DataFrame) -> pl.DataFrame:
    """The prize list with each team's member ids (会员号) as the registration gave them, as
    the certificates print them: `member_ids`, in the order of the players. The ids paisai
    makes from the names are its own, never printed (issue 51): no member id, no number."""
    ids = db.frame(con, """
        select team_no, string_agg(player_id, '、' order by slot) as member_ids
        from player_map where event_id = $e and slot <= 2
          and nullif(trim(member_id), '') is not null
        group by team_no""", {"e": event_id})
    if prizes.is_empty():
        return prizes.with_columns(pl.lit(None, pl.String).alias("member_ids"))
    return prizes.join(ids, on="team_no", how="left", maintain_order="left")


# keys tried, in this order, to tell the organizer which would separate a tie
SEPARATING_KEYS = ["level_diff_score", "levels", "net_levels", "wins", "buchholz",
                   "sonneborn_berger", "lot", "team_no"]


def _tie_notes(con: duckdb.DuckDBPyConnection, event: Event, ranking: pl.DataFrame,
               places: list[str]) -> list[str]:
    teams, ranks = ranking["team_no"].to_list(), ranking["rank"].to_list()
    notes = []
    for i, prize in enumerate(places):
        tied = [j for j, r in enumerate(ranks) if r == ranks[i] and j != i]
        if not tied:
            notes.append("")
            continue
        others = "、".join(teams[j] for j in tied)
        if all(j < len(places) and places[j] == prize for j in tied):
            notes.append(f"与 {others} 并列第 {ranks[i]} 名 shares place {ranks[i]} with {others}")
            continue
        key = _separating_key(con, event, [teams[i], *(teams[j] for j in tied)])
        hint = (f"加排名依据 {key} 可分出先后 the key {key} would separate them"
                if key else "请组织者裁定 the organizer must decide")
        notes.append(f"与 {others} 同列第 {ranks[i]} 名：本赛事的排名依据未能区分，奖项暂按队号分；"
                     f"{hint} shares place {ranks[i]} with {others}: the ruleset's ranking keys "
                     "do not separate them, the prizes follow team numbers for now")
    return notes


def _separating_key(con: duckdb.DuckDBPyConnection, event: Event, tied: list[str]) -> str:
    """The first key of SEPARATING_KEYS that, added to the chain, gives the tied teams
    different ranks; '' when none does."""
    chain = scoring.published_keys(event, scoring.latest_round(con, event.event_id))
    for key in SEPARATING_KEYS:
        if key in chain:
            continue
        ranked = scoring.standings(con, event, keys=[*chain, key]).filter(
            pl.col("team_no").is_in(tied))
        if ranked["rank"].n_unique() == ranked.height:
            return key
    return ""


def unfinished(con: duckdb.DuckDBPyConnection, event: Event) -> str | None:
    """Why the prizes are not final yet (a Swiss event with planned rounds still to play or
    report), else None. A Tractor event's prizes wait for the final (`tractor_awards`)."""
    planned = event.ruleset.rounds
    if not event.ruleset.is_swiss or not planned:
        return None
    done = rounds.summary(con, event.event_id).filter(
        (pl.col("round") == planned) & (pl.col("reported") == pl.col("expected")))
    if done.is_empty():
        latest = scoring.latest_round(con, event.event_id)
        so_far = (f"已有成绩到第 {latest} 轮", f"results up to round {latest}") if latest \
            else ("还没有成绩", "no results yet")
        return (f"比赛还没有结束（计划 {planned} 轮，{so_far[0]}），名次未定 the event is not "
                f"over ({planned} rounds planned, {so_far[1]}): the prizes are not final")
    return None


BY = {"playoff": ("加赛", "a play-off"), "lot": ("抽签", "a lot")}


def assign(places: list[Place], prizes: list[str],
           decided: dict[int, tuple[tuple[str, ...], str]] | None
           = None, equal_split: str = "organizer") -> list[tuple[Place, str, str]]:
    """Prizes in order to places in order. Where teams sharing a place are split by a quota
    (two losing semi-finalists, one third prize), the group-stage record decides and a note
    says so; where that record is equal too, nothing the ruleset reads separates them: with
    `awards.equal_split = "shared"` each takes the prize, else the organizer's play-off or
    lot decides (`decided`: rank → (the teams given the prizes in order, "playoff" | "lot")) and until it is entered each
    is listed with the prize marked 待定 undecided — never one picked by team number.

    >>> a, b = Place("T1", 1, "", ()), Place("T4", 3, "半决赛", (3, 2, 9))
    >>> c = Place("T2", 3, "半决赛", (2, 1, 5))
    >>> [(p.team_no, prize, bool(note)) for p, prize, note in assign([a, b, c], ["一", "三"])]
    [('T1', '一', False), ('T4', '三', True)]
    >>> d = Place("T5", 3, "半决赛", (3, 2, 9))
    >>> [(p.team_no, prize) for p, prize, _ in assign([a, b, d], ["一", "三"])]
    [('T1', '一'), ('T4', '三（待定 undecided）'), ('T5', '三（待定 undecided）')]
    >>> [(p.team_no, prize) for p, prize, _ in assign([a, b, d], ["一", "三"], {3: (("T5",), "lot")})]
    [('T1', '一'), ('T5', '三')]
    >>> [(p.team_no, prize) for p, prize, _ in assign([a, b, d], ["一", "三"], equal_split="shared")]
    [('T1', '一'), ('T4', '三'), ('T5', '三')]
    >>> e, f = Place("T6", 3, "半决赛", (3, 2, 9)), Place("T7", 3, "半决赛", (3, 2, 9))
    >>> [(p.team_no, prize) for p, prize, _ in assign([a, b, d, e, f], ["一", "三", "三"],
    ...                                               {3: (("T6",), "lot")})]
    [('T1', '一'), ('T6', '三'), ('T4', '三（待定 undecided）'), ('T5', '三（待定 undecided）'), ('T7', '三（待定 undecided）')]
    >>> [(p.team_no, prize) for p, prize, _ in assign([a, b, d, e, f], ["一", "三", "三"],
    ...                                               {3: (("T7", "T4"), "lot")})]
    [('T1', '一'), ('T7', '三'), ('T4', '三')]
    """
    decided = decided or {}
    out = []
    for rank in dict.fromkeys(p.rank for p in places):
        group = [p for p in places if p.rank == rank]
        first = places.index(group[0])
        given = prizes[first:first + len(group)]
        if not given:
            break
        cut = next((i for i in range(1, len(group)) if i >= len(given)
                    or given[i] != given[i - 1]), None)
        if cut is None:  # every team of the place takes the same prize
            note = f"并列第 {rank} 名 shared place {rank}" if len(group) > 1 else ""
            out += [(p, prize, note) for p, prize in zip(group, given, strict=False)]
            continue
        level = group[cut - 1].record
        equal = [p for p in group if p.record == level] if group[cut].record == level else []
        if not equal:  # the group-stage record separates them
            for i, place in enumerate(group[:len(given)]):
                others = [p for j, p in enumerate(group)
                          if j >= len(given) or given[j] != given[i]]
                names = "、".join(p.team_no for p in others)
                out.append((place, given[i], (
                    f"与 {names} 同列第 {rank} 名，按小组赛成绩（积分、净胜局、级差）排前 "
                    f"shares place {rank} with {names}: the group-stage record "
                    f"{place.record} decides") if others else f"并列第 {rank} 名 shared place {rank}"))
            continue
        first = group.index(equal[0])
        block = given[first:first + len(equal)]  # the prizes the equal teams contend for
        shared = f"并列第 {rank} 名 shared place {rank}"
        out += [(p, given[i], shared) for i, p in enumerate(group[:first])]
        names = "、".join(p.team_no for p in equal)
        why = (f"{names} 同列第 {rank} 名，小组赛成绩（积分、净胜局、级差）也相同 share place "
               f"{rank} with the same group-stage record {level}")
        chosen = decided.get(rank)
        if equal_split == "shared":
            out += [(p, block[0], f"{why}：共享{block[0]} share the prize") for p in equal]
        elif chosen and set(chosen[0]) <= {p.team_no for p in equal}:
            said = BY.get(chosen[1], (chosen[1], chosen[1]))
            won = [p for team in chosen[0] for p in equal if p.team_no == team]
            ordered = won + [p for p in equal if p not in won]
            rest, left = ordered[len(won):], block[len(won):]
            note = f"{why}：{said[0]}决定（组织者录入） decided by {said[1]}, entered by the organizer"
            if len(rest) > 1 and (len(set(left)) > 1 or 0 < len(left) < len(rest)):
                # the decision settles its teams; the others are still not separated: 待定
                label = "/".join(dict.fromkeys(left)) + "（待定 undecided）"
                out += [(p, prize, note) for p, prize in zip(won, block, strict=False)]
                out += [(p, label, f"{why}：其余各队仍须由组织者加赛或抽签决定 the others still "
                                   "wait for the organizer's play-off or lot") for p in rest]
            else:
                out += [(p, prize, note) for p, prize in zip(ordered, block, strict=False)]
        else:
            label = "/".join(dict.fromkeys(block)) + "（待定 undecided）"
            out += [(p, label, f"{why}：由加赛或抽签决定，录入 paisai awards decide --rank {rank} "
                               f"--team 队号 --by playoff|lot decided by a play-off or a lot "
                               "the organizer enters") for p in equal]
        after = first + len(equal)
        out += [(p, given[after + i], shared)
                for i, p in enumerate(group[after:len(given)])]
    return out


def decide(con: duckdb.DuckDBPyConnection, event: Event, rank: int, teams: list[str],
           decided_by: str) -> tuple[tuple[str, ...], str] | None:
    """The organizer's play-off or lot between teams sharing place `rank` with equal records
    where the prizes split them: `teams`, in order, take the prizes (one team where one prize
    splits them; two where four teams contend for two). Refused unless such a split waits
    for it. Deciding again replaces the earlier decision (a mistyped team corrected);
    returns the decision replaced, (teams, how), or None."""
    if event.ruleset.is_swiss:
        raise UsageError("积分编排的赛事由排名依据决定名次 a Swiss event's ranking keys "
                         "decide its places")
    undecided = tractor_awards(con, event, decided={})
    waiting = undecided.filter((pl.col("rank") == rank) & pl.col("award").str.contains("待定"))
    if waiting.is_empty():
        raise UsageError(f"第 {rank} 名没有需要加赛或抽签决定的奖项 no prize at place {rank} "
                         "waits for a play-off or a lot")
    if len(set(teams)) < len(teams):
        raise UsageError(f"队号重复 a team named twice: {'、'.join(teams)}")
    for team_no in teams:
        if team_no not in waiting["team_no"].to_list():
            raise UsageError(f"{team_no} 不在第 {rank} 名的待定队伍中 is not one of the teams "
                             f"waiting at place {rank}: {'、'.join(waiting['team_no'])}")
    before = decisions(con, event).get(rank)
    con.execute("delete from award_decisions_ordered where event_id = ? and rank = ?",
                [event.event_id, rank])
    con.executemany("insert into award_decisions_ordered (event_id, rank, position, team_no, "
                    "decided_by) values (?, ?, ?, ?, ?)",
                    [[event.event_id, rank, i, team, decided_by]
                     for i, team in enumerate(teams, start=1)])
    return before


def decisions(con: duckdb.DuckDBPyConnection, event: Event
              ) -> dict[int, tuple[tuple[str, ...], str]]:
    """The organizer's play-offs and lots: rank → (the teams given the prizes in order, how)."""
    found: dict[int, tuple[tuple[str, ...], str]] = {}
    for rank, team, how in db.rows(con, "select rank, team_no, decided_by from "
                                        "award_decisions_ordered where event_id = ? "
                                        "order by rank, position", [event.event_id]):
        found[rank] = ((*found.get(rank, ((), how))[0], team), how)
    return found


def tractor_awards(con: duckdb.DuckDBPyConnection, event: Event,
                   decided: dict[int, tuple[str, str]] | None = None) -> pl.DataFrame:
    """The prize list of a Tractor event: places from the knockout (docs/rules/); the
    organizer's play-offs and lots as stored unless `decided` is given."""
    as_played = stages.places(con, event, as_played=True)  # the bracket read once
    out = stages.disqualified(con, event)
    places = without(as_played, set(out))
    if not places:
        raise UsageError("决赛还没有结果，名次未定 the final is not decided yet: no places")
    teams = {r[0]: r for r in db.rows(con, "select team_no, team_name, player1, player2, "
                                           "affiliation from teams where event_id = ?",
                                      [event.event_id])}
    # the quota counts registrations ("若单项报名人数不足20组"): a disqualified team was
    # registered all the same, so it never shrinks the prizes of those who played on
    prizes = [name for name, count in quotas(event.ruleset.awards, len(teams))
              for _ in range(count)]
    before = {p.team_no: p.rank for p in as_played}
    moved = ("、".join(out) + " 取消资格，不计名次与奖项，其后各队递补 disqualified: no place and "
             "no prize; the teams below moved up") if out else ""
    above = min((before[team] for team in out if team in before), default=None)
    rows = [(prize, place.rank, *teams[place.team_no],
             "；".join(n for n in (note, moved if above is not None
                                   and above <= before[place.team_no] else "") if n))
            for place, prize, note in assign(places, prizes, decisions(con, event)
                                             if decided is None else decided,
                                             event.ruleset.awards["equal_split"])]
    return pl.DataFrame(rows, schema=[*AWARD_COLUMNS, "note"], orient="row")
