"""Synthetic events: invented teams, paired by the event's own rules, levels played out deal
by deal (docs/rules/general.md §2), written as the sheets an organizer would send. Used by the demo, tests and
benchmarks. Names are invented from common characters; no real person is named.
"""

from __future__ import annotations

import bisect
import random
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from pipeline.base import db, events
from pipeline.base.levels import format_level
from pipeline.base.output import to_csv
from pipeline.base.ruleset import resolve
from pipeline.intake.ingest import ingest_file
from pipeline.intake.sheets.headers import ALIASES
from pipeline.pairing import event_round
from pipeline.publishing.export.workbook import new_workbook, write_sheet
from pipeline.ranking import rounds
from pipeline.ranking.deals import SIDE_WORDS, Deal, RoundState, play, refusal

SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤"
GIVEN = "伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玉萍红娥玲芬燕彬斌宇浩凯健俊帆帅旭宁龙林欣悦晨阳雪琳晗博文轩睿泽"
UNITS = ["恒通贸易", "华信物流", "东方报关", "远航供应链", "金桥国际", "新港货代", "瑞丰进出口",
         "海达关务", "宏图实业", "联创科技", "安泰物流", "鼎盛商贸", "星河电子", "嘉禾食品",
         "天宇制造", "万象咨询"]
TEAM_WORDS = ["雄鹰", "猛虎", "飞龙", "神牌", "必胜", "常胜", "闪电", "旋风", "掼王", "牌仙",
              "同心", "联手", "双剑", "金牌", "红心", "黑桃"]


@dataclass
class Simulated:
    folder: Path
    entries: Path
    rounds: list[Path]


def invent_name(rng: random.Random) -> str:
    return rng.choice(SURNAMES) + "".join(rng.choice(GIVEN) for _ in range(rng.choice((1, 2))))


def invent_entries(teams: int, rng: random.Random) -> pl.DataFrame:
    units = UNITS[: max(2, min(len(UNITS), teams // 3))]
    rows = []
    taken: set[tuple[str, str]] = set()  # one person plays in one team: no namesakes of a unit
    for number in range(1, teams + 1):
        word = rng.choice(TEAM_WORDS)
        first, second = invent_name(rng), invent_name(rng)
        unit = rng.choice(units)
        while (first, unit) in taken:
            first = invent_name(rng)
        while (second, unit) in taken or second == first:
            second = invent_name(rng)
        taken |= {(first, unit), (second, unit)}
        rows.append({"team_no": f"A{number}", "team_name": f"{word}{number}队",
                     "player1": first, "player2": second, "affiliation": unit})
    return pl.DataFrame(rows)


FINISHES, FINISH_WEIGHTS = (2, 3, 4), (3, 7, 10)  # how a deal ends: 头游+末游 …, cumulated


def play_table(rng: random.Random, ew_strength: float, ns_strength: float,
               max_deals: int, a_fail_limit: int) -> RoundState:
    """Deals until a side passes A, the deal limit, or the clock (a random stop)."""
    state = RoundState()
    limit = max_deals or 12
    stop = rng.randint(max(3, limit - 3), limit)
    p_ew = ew_strength / (ew_strength + ns_strength)
    while state.deals < stop and refusal(state, max_deals) is None:
        winner = "ew" if rng.random() < p_ew else "ns"
        # rng.choices((2, 3, 4), weights=(3, 4, 3)), the same draw without its set-up
        finish = FINISHES[bisect.bisect(FINISH_WEIGHTS, rng.random() * 10, 0, 2)]
        play(state, Deal(winner, finish), a_fail_limit)
    return state


def _tie_sides(state: RoundState) -> dict[str, str | None]:
    """With equal levels, who reached them first and who won the last deal (the presets that
    decide such a table need them)."""
    tied = state.levels["ew"] == state.levels["ns"]
    return {"first_to_level": SIDE_WORDS.get(state.first_to_level) if tied else None,
            "last_deal_side": SIDE_WORDS.get(state.last_winner) if tied else None}


def write_sheets(frame: pl.DataFrame, kind: str, base: Path, xlsx: bool = True) -> None:
    """`frame` (columns named by their codes) as BASE.csv and (with `xlsx`) BASE.xlsx, with
    the headers an organizer writes (the first alias of each column)."""
    headers = [ALIASES[kind][c][0] for c in frame.columns]
    base.with_suffix(".csv").write_text(to_csv(frame.rename(dict(zip(frame.columns, headers,
                                                                     strict=True)))),
                                        encoding="utf-8")
    if not xlsx:
        return
    book = new_workbook(base.with_suffix(".xlsx"))
    write_sheet(book, "Sheet1", frame, headers)
    book.close()


def simulate(
    teams: int, rounds_count: int, out: Path, seed: int = 1, ruleset: str = "suzhou-2025",
    into: Path | None = None, event_id: str = "sim", name: str = "模拟赛事",
    on_round: Callable[[str], None] = lambda item: None,
    entries: pl.DataFrame | None = None, date: str | None = None, xlsx: bool = True,
) -> Simulated:
    """Write entries and one results sheet per round to `out`; when `into` is given the event
    is also ingested there round by round (else into a throwaway database). A preset with
    fewer rounds than asked has its round count raised for the simulated event. `entries`
    (team_no, team_name, player1, player2, affiliation) replaces the invented teams;
    `xlsx=False` writes the CSV sheets alone (a benchmark's preparation)."""
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    entries = invent_entries(teams, rng) if entries is None else entries
    strength = {t: rng.uniform(0.5, 1.5) for t in entries["team_no"]}
    write_sheets(entries, "entries", out / "entries", xlsx)
    with tempfile.TemporaryDirectory() as scratch:
        database = into or Path(scratch) / "sim.duckdb"
        rules = resolve(ruleset)
        if rules.rounds and rules.rounds < rounds_count:
            raised = Path(scratch) / f"{rules.name}.toml"
            raised.write_text(re.sub(r"(?m)^rounds = \d+", f"rounds = {rounds_count}",
                                     rules.source), encoding="utf-8")
            ruleset = str(raised)
        with db.writing(database) as con:
            event = events.create(con, event_id, name, ruleset, date)
        ingest_file(database, event_id, out / "entries.csv")
        deal_rules = event.ruleset.deals
        written = []
        for round_no in range(1, rounds_count + 1):
            on_round(f"第 {round_no} 轮 round {round_no}")
            with db.writing(database) as con:
                event_round.pair(con, event, round_no, seed=seed)
                pairs = rounds.pairings(con, event_id, round_no)
            rows = []
            for r in pairs.filter(pl.col("ns_team").is_not_null()).iter_rows(named=True):
                state = play_table(rng, strength[r["ew_team"]], strength[r["ns_team"]],
                                   deal_rules["max_deals"], deal_rules["a_fail_limit"])
                rows.append({"round": round_no, "table": r["table"], "ew_team": r["ew_team"],
                             "ns_team": r["ns_team"],
                             "ew_level": format_level(state.levels["ew"]),
                             "ns_level": format_level(state.levels["ns"]),
                             "deals": state.deals, **_tie_sides(state)})
            sheet = out / f"round-{round_no}"
            write_sheets(pl.DataFrame(rows), "results", sheet, xlsx)
            ingest_file(database, event_id, sheet.with_suffix(".csv"))
            written.append(sheet.with_suffix(".csv"))
    return Simulated(out, out / "entries.csv", written)
