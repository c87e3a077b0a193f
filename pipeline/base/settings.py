"""Every ruleset setting: its default (DEFAULTS, with what it means beside it), the values a
choice may take (CHOICES), the ranges of numbers (RANGES), the ranking's tiebreak keys
(RANKING_KEYS) and the late ladder's actions. A new setting is added here, read by the
stage that needs it, and mapped to its notice sentence in docs/rules/README.md;
`pipeline.base.ruleset` merges a preset over these and checks it."""

from __future__ import annotations

from typing import Any

DEFAULTS: dict[str, Any] = {
    "name": "",
    "discipline": "guandan",
    # "swiss": rounds paired by ranking (every Guandan event; a Tractor event may choose it,
    # seed 002); "knockout": Tractor groups then knockout (paisai bracket). "" = by discipline
    "format": "",
    # table self-reports: "both_sides" stores a result both sides sent alike at once;
    # "organizer" keeps every report waiting for the organizer's approval
    "self_report": "both_sides",
    "description": "",
    "rounds": 0,
    "team_size": 1,
    "scoring": {
        "win": 3,  # match points may be fractions (1 / 0.5 / 0)
        "draw": 1,
        "loss": 0,
        "absent": None,  # a team that does not show (forfeits); default: the loss points
        "bye_points": None,  # a bye; default: the win points (or draw with bye = "draw")
        "level_diff_base": 13,
        "equal_levels": "draw",
        "forfeit_level_diff": 3,
        "forfeit_penalty_target": "match_points",
        "forfeit_penalty": 0,
        "bye": "win",
        "bye_level_diff": 3,
        # the level credited to the winner of a game not played (a bye, a forfeit, a round
        # ruled as a forfeit) where levels are scored (seed 000's 积分): 0, the start plus
        # the level difference (2 + 3 = 5); or a level, e.g. 15 (过A: a game won outright)
        "unplayed_win_levels": 0,
        # or "round_winners_average": what the round's played winners reached on average
        # (rounded down to a whole level: 12.5 → 12; the played sides' average in a round
        # without a win), as bridge gives a bye the field's average; unplayed_win_levels
        # only where the round has no game played. "fixed": unplayed_win_levels as above
        "unplayed_win": "fixed",
        "vp_table": [0],
        "foul_limit": 0,  # fouls that lose the round (seed 003: 3); 0 off
        "warnings_per_violation": 0,  # warnings that make one violation (seed 001: 2)
        "violation_limit": 0,  # violations that lose the round (seed 001: 3); 0 off
        # in a team event, fouls, warnings and violations count per "team" (its pairs add
        # up, and the limit loses the whole team match) or per "pair" (each at its table,
        # the limit loses that table only; a row without a table counts for the team)
        "fouls_per": "team",
        # the level difference a round lost by ruling (fouls, violations) counts: "table",
        # the levels the table reached (the winner credited the higher side's); "forfeit",
        # as a forfeit (forfeit_level_diff)
        "ruled_loss": "table",
        # ruled losses that suspend a team (seed 001: "兩次判負要判停賽": 2); 0 off. paisai
        # warns in standings and on the console; the referee decides
        "suspend_after_ruled_losses": 0,
    },
    "deals": {
        "max_deals": 0,
        "a_fail_limit": 0,
        # the table's own sheet (issue 42): the side that records each deal (seed 001: "坐南家
        # 运动员负责记录，坐东西向运动员负责记录复查": South's pair, North-South); the other
        # side confirms or disputes each deal
        "recorder": "ns",
        # a deal entered and neither confirmed nor disputed for these minutes is final; 0:
        # only the other side's confirmation makes it final
        "confirm_minutes": 0,
        # when time is up: "finish_deal" — the deal in play is finished and is the last
        # (seed 001: "比赛时间到打完在手牌"; seed 003: "有未结束比赛的可继续完成比赛");
        # "stop" — no deal after time
        "after_time": "finish_deal",
    },
    "officials": {
        # leave granted by the chief before a round (seed 001 十三 第3条: "賽前向裁判長請假並得
        # 到同意，比賽開始後15分鐘內不作判罰，超過15分鐘也作棄權論處"): lateness within it is
        # not sanctioned, beyond it the round is forfeited all the same
        "leave_minutes": 15,
        # an appeal within these minutes after the ruling or the game (seed 001 十五: 10)
        "appeal_minutes": 10,
        # the committee answers within these minutes (seed 001 十五: 30), shown as a countdown
        "answer_minutes": 30,
    },
    "ranking": {
        "keys": ["match_points", "level_diff_score", "levels", "team_no"],
        "pairing_keys": ["match_points", "level_diff_score", "levels", "team_no"],
        # the ranking published before the last round, where a notice ranks the rounds
        # before it by a shorter chain (seed 004: "第一轮，按胜负平积分→级差分→升级数→队编号
        # 顺序号", the quiz only in the final ranking); [] : the keys above throughout
        "interim_keys": [],
        "head_to_head": {
            # all_met: only when every tied team has played every other (FIDE); two_teams:
            # only when exactly two are tied and have met; mini_league: the games among all
            # the tied teams, whatever was played
            "applies": "mini_league",
            # what the tied teams' games among themselves count: match points, "wins" (a
            # loss is never credit), "net_wins" (wins − losses: a team that met more of
            # the tied teams gains nothing by it) or "level_points" (the levels reached)
            "counts": "match_points",
            "reapply": False,  # again within each sub-group still tied, and only there
        },
        # rounds without a game (byes, forfeits, a withdrawn team's rounds) in Buchholz,
        # its cuts and Sonneborn-Berger: "fide", as FIDE C.07 article 16 defines them (a
        # dummy opponent at the team's own score, capped; cuts take unplayed rounds first);
        # "nothing", the reading before it: a bye counts nothing, a forfeit the absent
        # opponent's real score; "auto" (the default): "fide" for Swiss rounds, "nothing"
        # for a round robin (every team meets every other: rounds ≥ teams − 1), as FIDE does
        "unplayed": "auto",
    },
    "pairing": {
        "system": "snake4",
        "draw": "team_no",
        "seats": "rank",
        "avoid_same_affiliation_rounds": 0,
    },
    "tractor": {
        "decks": 4,
        "takeover": 160,
        "step": 40,
        "start_level": 3,
        "games_to_win": 2,
        "match_minutes": 90,
        "late_forfeit_levels": 1,  # seed 002, late 16–20 min: the opponents go up (our reading)
        # seed 000: "报2张主…加2级": trump shown with n ≥ 2 cards adds n levels to the side
        # that gains (a rule of that notice only: off unless a preset says so)
        "trump_bonus": False,
        # equal levels when a game ends on the clock: "play_on" until one side leads (seed
        # 000: "打平的則繼續進行，直到一方領先"), or "last_deal": the round simply ends and the
        # side that won the last deal wins the game (seed 002: "再打一副牌，打完结束比赛")
        "level_at_time": "play_on",
        # a match's own sheet on the phones (issue 42): the side that records each deal,
        # "a" (the match's first drawn team) or "b"; the other confirms or disputes. The
        # notices are silent (seed 001's South records a Guandan table): our reading
        "recorder": "a",
        # 抠底 (the defenders win the last trick): the bottom's points count again, times the
        # multiplier the last trick earns. The most a deal's defenders can score is then
        # every point of the decks (100 a deck) with the bottom's counted again: the bottom
        # holds `bottom_cards` cards (seed 002: "留底6张"; K and 10 count 10 each) and
        # `bottom_multiplier_max` is the largest multiplier accepted (the notices name
        # 抠底 but seed 002 gives no multiples; seed 000: "单牌…1倍，对牌…双倍，以此类推")
        "bottom_cards": 8,
        "bottom_multiplier_max": 8,
    },
    "stages": {
        "group_win_points": 1,
        "advance": 2,
        "redraw": True,
        "third_place_match": False,  # else both losing semi-finalists share third
    },
    "clock": {
        "round_minutes": 45,
        "reminder_at_minutes": 0,
        "reminder_message": "本副打完后不再发新牌",
        "late": [],
    },
    "awards": {
        "names": ["冠军", "亚军", "季军"],
        "counts": [1, 1, 2],
        "small_field": 0,
        "small_field_counts": [1, 1, 1],
        # teams sharing a place that one prize splits, equal on every record the ruleset
        # reads (seed 000: two losing semi-finalists, one 三等奖, the same group record):
        # "organizer" — a play-off or a lot the organizer enters (paisai awards decide), the
        # prize marked 待定 until then; "shared" — each of them takes the prize
        "equal_split": "organizer",
    },
}

RANKING_KEYS = {
    "match_points": "积分 (desc)",
    "levels_gained": "累积小分：各局升级数之和（所达级数减起始级） (desc)",
    "buchholz_cut1": "对手分去掉最低一个 Buchholz cut 1 (desc)",
    "median_buchholz": "对手分去掉最高与最低 median Buchholz (desc)",
    "sonneborn_berger": "索伯分：所胜对手积分 + 所和对手积分之半 (desc)",
    "opponents_level_diff": "对手级差分之和 (desc)",
    "progressive": "累进分：每轮后累计积分之和 (desc)",
    "games_won": "胜局数（拖拉机、团体赛按桌） (desc)",
    "lot": "抽签（种子保存于赛事，排名时打印） (asc)",
    "vp": "级差换算积分 VP (desc)",
    "level_points": "牌级积分：打到几积几分 (desc)",
    "head_to_head": "相互间胜负 among exactly the tied teams (desc)",
    "buchholz": "对手分 opponents' match points (desc)",
    "level_diff_score": "级差分 (desc)",
    "levels": "升级数 (desc)",
    "net_levels": "净胜级 (desc)",
    "wins": "胜场 (desc)",
    "quiz_score": "测试题得分 (desc)",
    "quiz_seconds": "测试题用时 (asc)",
    "team_no": "队号自然顺序 (asc)",
}

CHOICES = {
    ("scoring", "equal_levels"): {"draw", "first_to_reach", "last_deal"},
    ("scoring", "bye"): {"win", "draw"},
    ("scoring", "forfeit_penalty_target"): {"match_points", "level_diff_score", "levels"},
    ("pairing", "system"): {"snake4", "monrad", "dutch"},
    ("pairing", "draw"): {"team_no", "random"},
    ("pairing", "seats"): {"rank", "balance", "draw_number"},
    ("discipline",): {"guandan", "tractor"},
    ("format",): {"", "swiss", "knockout"},
    ("self_report",): {"both_sides", "organizer"},
    ("ranking", "head_to_head", "applies"): {"all_met", "two_teams", "mini_league"},
    ("tractor", "level_at_time"): {"play_on", "last_deal"},
    ("scoring", "fouls_per"): {"team", "pair"},
    ("ranking", "head_to_head", "counts"): {"match_points", "wins", "net_wins",
                                            "level_points"},
    ("ranking", "unplayed"): {"fide", "nothing", "auto"},
    ("scoring", "ruled_loss"): {"table", "forfeit"},
    ("deals", "recorder"): {"ew", "ns"},
    ("deals", "after_time"): {"finish_deal", "stop"},
    ("tractor", "recorder"): {"a", "b"},
    ("awards", "equal_split"): {"organizer", "shared"},
    ("scoring", "unplayed_win"): {"fixed", "round_winners_average"},
}


# Settings that take a fraction as well as a whole number (1 / 0.5 / 0 points)
# The side that decides a level game where the preset reads equal levels by one
# (scoring.equal_levels; seed 001: "级数相同则末副上游方为胜方"): its column in a results
# sheet, and the field as a form names it (Chinese, English). A draw needs none.
EQUAL_LEVELS_DECIDERS = {
    "last_deal": ("last_deal_side", "末副上游方（末副头游方）", "the side first out in the last deal"),
    "first_to_reach": ("first_to_level", "先到方", "the side that reached the level first"),
}


FRACTIONS = {("scoring", k) for k in ("win", "draw", "loss", "absent", "bye_points")}

# The sane range of each number in a ruleset (for a list, of each of its items).
RANGES: dict[tuple[str, ...], tuple[float, float]] = {
    ("rounds",): (0, 1_000),  # 0: as many rounds as the organizer pairs
    ("team_size",): (1, 8),
    ("scoring", "win"): (-1_000, 1_000),
    ("scoring", "absent"): (-1_000, 1_000),
    ("scoring", "bye_points"): (-1_000, 1_000),
    ("scoring", "draw"): (-1_000, 1_000),
    ("scoring", "loss"): (-1_000, 1_000),
    ("scoring", "level_diff_base"): (0, 1_000),
    ("scoring", "forfeit_level_diff"): (0, 13),
    ("scoring", "forfeit_penalty"): (0, 10_000),
    ("scoring", "bye_level_diff"): (0, 13),
    ("scoring", "unplayed_win_levels"): (0, 15),
    ("scoring", "vp_table"): (-1_000, 1_000),
    ("scoring", "foul_limit"): (0, 100),
    ("scoring", "warnings_per_violation"): (0, 100),
    ("scoring", "violation_limit"): (0, 100),
    ("scoring", "suspend_after_ruled_losses"): (0, 100),
    ("deals", "max_deals"): (0, 1_000),
    ("deals", "a_fail_limit"): (0, 100),
    ("deals", "confirm_minutes"): (0, 120),
    ("officials", "leave_minutes"): (0, 120),
    ("officials", "appeal_minutes"): (1, 1_440),
    ("officials", "answer_minutes"): (1, 1_440),
    ("pairing", "avoid_same_affiliation_rounds"): (0, 1_000),
    ("tractor", "decks"): (1, 10),
    ("tractor", "takeover"): (5, 1_000),
    ("tractor", "step"): (5, 500),
    ("tractor", "start_level"): (2, 14),
    ("tractor", "games_to_win"): (1, 10),
    ("tractor", "match_minutes"): (0, 1_440),
    ("tractor", "late_forfeit_levels"): (0, 13),
    ("tractor", "bottom_cards"): (0, 40),
    ("tractor", "bottom_multiplier_max"): (1, 64),
    ("stages", "group_win_points"): (0, 100),
    ("stages", "advance"): (1, 1_000),
    ("clock", "round_minutes"): (1, 1_440),
    ("clock", "reminder_at_minutes"): (0, 1_440),
    ("awards", "counts"): (0, 100_000),
    ("awards", "small_field"): (0, 100_000),
    ("awards", "small_field_counts"): (0, 100_000),
}


LATE_ACTIONS = {"warning", "penalty", "forfeit_game", "forfeit_round", "no_sanction"}
# what a late penalty may take from: a Swiss total, or a Tractor deal's captured points
LATE_TARGETS = {"match_points", "level_diff_score", "levels", "points"}
