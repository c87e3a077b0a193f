"""Header recognition: which kind of sheet a header row belongs to, and column code names.

Headers may be Chinese or English (GLOSSARY.md), in any order, with spaces and full-width
characters; columns not named here are ignored.

>>> recognise(["轮次", "桌号", "东西队号", "南北队号", "东西级数", "南北级数"]).kind
'results'
>>> recognise(["队号", "队名", "队员1", "队员2", "单位"]).kind
'entries'
>>> recognise(["说明"]) is None
True
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from pipeline.base.chinese import simplified

ALIASES: dict[str, dict[str, list[str]]] = {
    "entries": {
        "team_no": ["队号", "队伍编号", "编号", "参赛编号", "team_no", "teamno", "team"],
        "team_name": ["队名", "队伍名称", "组合名称", "team_name", "teamname"],
        "player1": ["队员1", "选手1", "队员一", "运动员1", "选手一", "运动员一", "姓名1", "姓名一",
                    "队员1姓名", "选手1姓名", "队员甲", "选手甲", "参赛选手1", "参赛队员1", "成员1",
                    "player1", "player_1", "name1"],
        "player2": ["队员2", "选手2", "队员二", "运动员2", "选手二", "运动员二", "姓名2", "姓名二",
                    "队员2姓名", "选手2姓名", "队员乙", "选手乙", "参赛选手2", "参赛队员2", "成员2",
                    "player2", "player_2", "name2"],
        "player3": ["队员3", "选手3", "队员三", "运动员3", "选手三", "运动员三", "姓名3", "姓名三",
                    "队员3姓名", "选手3姓名", "参赛选手3", "参赛队员3", "成员3", "player3",
                    "player_3", "name3"],
        "player4": ["队员4", "选手4", "队员四", "运动员4", "选手四", "运动员四", "姓名4", "姓名四",
                    "队员4姓名", "选手4姓名", "参赛选手4", "参赛队员4", "成员4", "player4",
                    "player_4", "name4"],
        "affiliation": ["单位", "所属单位", "所属", "商会", "工会", "社团", "部门", "所属俱乐部",
                        "所属俱乐部/社团", "affiliation", "unit"],
        # the association's member id of each player: when given, it decides who is who
        "member1": ["会员号1", "会员号", "选手1会员号", "队员1会员号", "会员编号1", "会员编号",
                    "选手一会员号", "队员一会员号", "member1", "member_id1", "member_id"],
        "member2": ["会员号2", "选手2会员号", "队员2会员号", "会员编号2", "选手二会员号",
                    "队员二会员号", "member2", "member_id2"],
        "member3": ["会员号3", "选手3会员号", "队员3会员号", "会员编号3", "member3", "member_id3"],
        "member4": ["会员号4", "选手4会员号", "队员4会员号", "会员编号4", "member4", "member_id4"],
    },
    "carry": {
        "team_no": ["队号", "队伍编号", "编号", "参赛编号", "team_no", "team"],
        "team_name": ["队名", "队伍名称", "组合名称", "team_name"],
        "match_points": ["当前积分", "总积分", "累计积分", "带入积分", "match_points"],
        "level_diff_score": ["级差分", "累计级差分", "level_diff_score"],
        "net_levels": ["净积小分", "净胜级", "净胜分", "net_levels"],
        "levels_gained": ["累积小分", "累计小分", "levels_gained"],
        "levels": ["升级数", "累计升级数", "levels"],
    },
    "players": {
        "player": ["姓名", "运动员", "选手", "队员", "player", "name"],
        "affiliation": ["单位", "所属单位", "所属", "商会", "工会", "社团", "部门", "所属俱乐部",
                        "所属俱乐部/社团", "affiliation", "unit"],
        "pair": ["配对", "备注", "配对编号", "搭档", "pair"],
    },
    "results_sides": {
        "round": ["轮次", "轮", "round"],
        "table": ["桌号", "桌", "table", "table_no"],
        "team_a": ["队伍A", "甲方", "A队", "队A", "A方", "team_a"],
        "team_b": ["队伍B", "乙方", "B队", "队B", "B方", "team_b"],
        "result_a": ["结果A", "甲方结果", "A队结果", "result_a"],
        "level_a": ["级数A", "甲方级数", "A队级数", "level_a"],
        "result_b": ["结果B", "乙方结果", "B队结果", "result_b"],
        "level_b": ["级数B", "乙方级数", "B队级数", "level_b"],
    },
    "results_by_team": {
        "round": ["轮次", "轮", "round"],
        "table": ["桌号", "桌", "table", "table_no"],
        "team": ["队号", "队伍", "本方", "本队", "team"],
        "opponent": ["对手", "对方", "对手队号", "opponent"],
        "own_level": ["本方级数", "本队级数", "own_level"],
        "opponent_level": ["对方级数", "对手级数", "opponent_level"],
        "result": ["结果", "胜负", "result"],
    },
    "results": {
        "round": ["轮次", "轮", "round"],
        "table": ["桌号", "桌", "table", "table_no"],
        "ew_team": ["东西队号", "东西队", "东西", "ew_team", "ew"],
        "ns_team": ["南北队号", "南北队", "南北", "ns_team", "ns"],
        "ew_level": ["东西级数", "东西级", "东西升级数", "ew_level"],
        "ns_level": ["南北级数", "南北级", "南北升级数", "ns_level"],
        "deals": ["副数", "deals"],
        "forfeit": ["弃权", "forfeit"],
        "first_to_level": ["先到方", "先到", "先到级方", "first_to_level"],
        "last_deal_side": ["末副上游方", "末副上游", "最后一副上游", "last_deal_side"],
        "note": ["备注", "note"],
    },
    "deals": {
        "round": ["轮次", "轮", "round"],
        "table": ["桌号", "桌", "table", "table_no"],
        "deal": ["副次", "副", "第几副", "deal"],
        "winner_side": ["上游方", "胜方", "winner_side"],
        "partner_finish": ["搭档名次", "搭档游数", "搭档", "partner_finish"],
        "ew_team": ["东西队号", "东西队", "东西", "ew_team", "ew"],
        "ns_team": ["南北队号", "南北队", "南北", "ns_team", "ns"],
    },
    "matches": {
        "stage": ["阶段", "stage"],
        "match": ["场次", "match"],
        "game": ["局", "局次", "game"],
        "team_a": ["甲方", "A队", "甲队", "team_a"],
        "team_b": ["乙方", "B队", "乙队", "team_b"],
        "a_level": ["甲方级数", "A队级数", "甲队级数", "a_level"],
        "b_level": ["乙方级数", "B队级数", "乙队级数", "b_level"],
        "winner": ["胜方", "winner"],
        "forfeit": ["弃权方", "弃权", "forfeit"],
        "disqualified": ["取消资格", "取消资格方", "disqualified"],
        "time_winner": ["到时领先方", "到时胜方", "time_winner"],
    },
    "tractor_deals": {
        "stage": ["阶段", "stage"],
        "match": ["场次", "match"],
        "game": ["局", "局次", "game"],
        "deal": ["盘", "盘次", "副次", "deal"],
        "declarer_team": ["庄家", "庄家队号", "declarer_team"],
        "points": ["得分", "抓分", "points"],
        "trump_cards": ["报主张数", "亮主张数", "trump_cards"],
    },
    "point_penalties": {
        "stage": ["阶段", "stage"],
        "match": ["场次", "match"],
        "game": ["局", "局次", "game"],
        "deal": ["盘", "盘次", "副次", "deal"],
        "team_no": ["队号", "犯规方", "team_no", "side"],
        "points": ["罚分", "扣分", "points"],
        "levels": ["罚级", "级数罚则", "升降级", "levels"],
        "deal_lost": ["本盘判负", "判负", "deal_lost"],
        "choice": ["选择", "被犯规方选择", "choice"],
        "reason": ["原因", "理由", "reason"],
    },
    "fouls": {
        "round": ["轮次", "轮", "round"],
        "team_no": ["队号", "team_no", "team"],
        "fouls": ["犯规次数", "犯规", "fouls"],
        "warnings": ["警告次数", "警告", "warnings"],
        "violations": ["违例次数", "违例", "记违例", "violations"],
        "table": ["桌号", "桌", "table"],
    },
    "penalties": {
        "round": ["轮次", "轮", "round"],
        "team_no": ["队号", "team_no", "team"],
        "target": ["扣分项目", "罚分项目", "扣分对象", "target"],
        "amount": ["扣分", "罚分", "分值", "amount"],
        "reason": ["原因", "理由", "事由", "reason"],
    },
    "quiz": {
        "team_no": ["队号", "team_no", "team"],
        "quiz_score": ["测试题得分", "答题得分", "quiz_score"],
        "quiz_seconds": ["答题用时", "用时", "测试题用时", "quiz_seconds"],
    },
}

REQUIRED: dict[str, list[str]] = {
    "entries": [],  # any one of ANY_OF["entries"]
    "players": ["player"],
    "carry": ["team_no", "match_points"],
    "results": ["ew_level", "ns_level"],  # round: a column or --round; table: or the teams
    "results_sides": ["team_a", "team_b", "level_a", "level_b"],
    "results_by_team": ["team", "opponent", "own_level", "opponent_level"],
    "penalties": ["round", "team_no", "target", "amount"],
    "quiz": ["team_no", "quiz_score"],
    "deals": ["round", "table", "deal", "winner_side", "partner_finish"],
    "fouls": ["round", "team_no"],  # and any one of ANY_OF["fouls"]
    "matches": ["stage", "match", "team_a", "team_b"],  # and levels or a decision
    "tractor_deals": ["stage", "match", "game", "deal", "declarer_team", "points"],
    "point_penalties": ["stage", "match", "game", "deal", "team_no"],  # and points or levels
}

ANY_OF: dict[str, list[str]] = {"entries": ["team_no", "player1", "team_name"],
                                "fouls": ["fouls", "warnings", "violations"],
                                "point_penalties": ["points", "levels"],
                                "matches": ["a_level", "forfeit", "disqualified", "time_winner"]}

KIND_NAMES = {
    "players": "个人报名表 one row per player",
    "carry": "带入成绩表 carried-over totals",
    "entries": "报名表 registration",
    "results": "成绩表 results",
    "results_sides": "成绩表（甲乙两方） results, one row per table by side",
    "results_by_team": "成绩表（每队一行） results, one row per team",
    "penalties": "罚分表 penalties",
    "quiz": "测试题成绩 quiz",
    "deals": "逐副记分表 deal by deal",
    "fouls": "犯规记录 fouls",
    "matches": "拖拉机比赛结果 tractor match results",
    "tractor_decisions": "拖拉机判定（弃权、取消资格、到时领先） tractor decisions",
    "tractor_deals": "拖拉机逐盘记分 tractor deals",
    "point_penalties": "拖拉机罚分 point penalties",
}


def normalize_header(text: object) -> str:
    """Full-width to half-width, no spaces or brackets' contents' padding, lower case.

    >>> normalize_header(" 东西 级数 "), normalize_header("Team_No")
    ('东西级数', 'team_no')
    """
    folded = unicodedata.normalize("NFKC", str(text or ""))
    return re.sub(r"\s+", "", folded).lower()


_LOOKUP = {
    kind: {normalize_header(alias): code for code, aliases in columns.items() for alias in aliases}
    for kind, columns in ALIASES.items()
}


# every header some kind knows as written: already simplified (a test checks that each is
# its own simplified spelling), so OpenCC is asked only about a header none of them knows
KNOWN_HEADERS = frozenset(header for lookup in _LOOKUP.values() for header in lookup)


@dataclass(frozen=True)
class HeaderMatch:
    """A header row recognised as one kind: code name → column position and header text."""

    kind: str
    positions: dict[str, int]
    written: dict[str, str]
    duplicates: dict[str, list[int]]


def match_kind(cells: list[object], kind: str) -> HeaderMatch | None:
    """Match one header row against one kind; None when a required column is missing."""
    lookup = _LOOKUP[kind]
    positions: dict[str, int] = {}
    written: dict[str, str] = {}
    duplicates: dict[str, list[int]] = {}
    for index, cell in enumerate(cells):
        header = normalize_header(cell)
        code = lookup.get(header)
        if code is None and header and not header.isascii() and header not in KNOWN_HEADERS:
            code = lookup.get(simplified(header))  # 東西級數 as traditional halls write it
        if code is None:
            continue
        if code in positions:
            duplicates.setdefault(code, [positions[code]]).append(index)
            continue
        positions[code] = index
        written[code] = str(cell).strip()
    if not all(code in positions for code in REQUIRED[kind]):
        return None
    if kind in ANY_OF and not any(code in positions for code in ANY_OF[kind]):
        return None
    return HeaderMatch(kind, positions, written, duplicates)


def nearest(rows: list[list[object]], kind: str | None = None) -> str:
    """What came closest to a header row, for the message when none is found: the row, the
    columns recognised in it, and the required ones missing with the names accepted."""
    best = None
    for index, cells in enumerate(rows):
        for candidate in ([kind] if kind else list(ALIASES)):
            lookup = _LOOKUP[candidate]
            found = {}
            for cell in cells:
                header = normalize_header(cell)
                code = lookup.get(header) or (lookup.get(simplified(header))
                                              if header and not header.isascii() else None)
                if code and code not in found:
                    found[code] = str(cell).strip()
            required = set(REQUIRED[candidate]) | (set(ANY_OF[candidate][:1])
                                                   if candidate in ANY_OF else set())
            # the closest kind lacks the fewest columns; then it matches the most
            score = (-len(required - set(found)), len(set(found) & required), len(found))
            if found and (best is None or score > best[0]):
                best = (score, index, candidate, found, required - set(found))
    if best is None:
        return "没有一行像表头 no row looks like a header"
    _, index, candidate, found, missing = best
    seen = "、".join(found.values())
    wanted = "; ".join(f"{ALIASES[candidate][code][0]} ({code}; 也可 also: "
                       f"{', '.join(ALIASES[candidate][code][1:4])})" for code in sorted(missing))
    return (f"最接近的是第 {index + 1} 行：认出 {seen}，按{KIND_NAMES[candidate]}还缺 missing "
            f"for {KIND_NAMES[candidate]}: {wanted}")


def recognise(cells: list[object], kind: str | None = None) -> HeaderMatch | None:
    """The kind a header row belongs to: the one matching the most columns."""
    kinds = [kind] if kind else list(ALIASES)
    matches = [m for k in kinds if (m := match_kind(cells, k)) is not None]
    if not matches:
        return None
    return max(matches, key=lambda m: (len(REQUIRED[m.kind]) + (m.kind in ANY_OF),
                                       len(m.positions)))
