"""Words on the screen, Chinese by default with English available (`?lang=en`)."""

from __future__ import annotations

TEXT: dict[str, dict[str, str]] = {
    "live": {"zh": "实时排名", "en": "Live ranking"},
    "pairings": {"zh": "对阵与座位", "en": "Pairings"},
    "round_pairing": {"zh": "第 {n} 轮对阵", "en": "Round {n} pairings"},
    "event": {"zh": "赛事", "en": "Event"},
    "round": {"zh": "轮次", "en": "Round"},
    "after_round": {"zh": "第 {n} 轮后", "en": "After round {n}"},
    "reported": {"zh": "已报 {x}/{y} 桌", "en": "{x}/{y} tables reported"},
    "updated": {"zh": "更新于 {t}", "en": "updated {t}"},
    "no_event": {"zh": "还没有赛事。用 paisai event create 创建。",
                 "en": "No event yet. Create one with paisai event create."},
    "no_results": {"zh": "还没有成绩。", "en": "No results yet."},
    "no_pairing": {"zh": "还没有编排。", "en": "Not paired yet."},
    "find": {"zh": "查找我的座位（队号、队名或姓名）", "en": "Find my table (team no., name or player)"},
    "not_found": {"zh": "没有找到", "en": "Not found"},
    "bye": {"zh": "轮空", "en": "bye"},
    "progression": {"zh": "名次变化", "en": "Rank by round"},
    "diff_dist": {"zh": "级差分布", "en": "Level differences"},
    "language": {"zh": "语言", "en": "Language"},
    "table": {"zh": "桌号", "en": "Table"},
    "ew": {"zh": "东西", "en": "East-West"},
    "ns": {"zh": "南北", "en": "North-South"},
    "seat": {"zh": "方位", "en": "Seat"},
    "team": {"zh": "队", "en": "Team"},
}

COLUMNS: dict[str, dict[str, str]] = {
    "rank": {"zh": "名次", "en": "Rank"},
    "team_no": {"zh": "队号", "en": "No."},
    "team_name": {"zh": "队名", "en": "Team"},
    "affiliation": {"zh": "单位", "en": "Affiliation"},
    "played": {"zh": "场次", "en": "Played"},
    "wins": {"zh": "胜", "en": "W"},
    "draws": {"zh": "平", "en": "D"},
    "losses": {"zh": "负", "en": "L"},
    "match_points": {"zh": "积分", "en": "Points"},
    "level_diff_score": {"zh": "级差分", "en": "Level diff. score"},
    "levels": {"zh": "升级数", "en": "Levels"},
    "net_levels": {"zh": "净胜级", "en": "Net levels"},
    "table": {"zh": "桌号", "en": "Table"},
    "ew_team": {"zh": "东西", "en": "East-West"},
    "ew_name": {"zh": "东西队名", "en": "EW team"},
    "ns_team": {"zh": "南北", "en": "North-South"},
    "ns_name": {"zh": "南北队名", "en": "NS team"},
}


def t(key: str, lang: str, **values: object) -> str:
    return TEXT[key].get(lang, TEXT[key]["zh"]).format(**values)


def column(name: str, lang: str) -> str:
    return COLUMNS.get(name, {}).get(lang, name)
