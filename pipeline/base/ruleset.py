"""Rulesets are data: one TOML file per preset, merged over the defaults below.

Every setting the scoring, ranking and pairing code reads lives here, so a new preset adds
a file, not a code path.

>>> rs = load_preset("suzhou-2025")
>>> rs.scoring["win"], rs.ranking["keys"][:2]
(3, ['match_points', 'level_diff_score'])
"""

from __future__ import annotations

import copy
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from pipeline.base.errors import UsageError

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
    "deals": {"max_deals": 0, "a_fail_limit": 0},
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
}


# Settings that take a fraction as well as a whole number (1 / 0.5 / 0 points)
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
    ("pairing", "avoid_same_affiliation_rounds"): (0, 1_000),
    ("tractor", "decks"): (1, 10),
    ("tractor", "takeover"): (5, 1_000),
    ("tractor", "step"): (5, 500),
    ("tractor", "start_level"): (2, 14),
    ("tractor", "games_to_win"): (1, 10),
    ("tractor", "match_minutes"): (0, 1_440),
    ("tractor", "late_forfeit_levels"): (0, 13),
    ("stages", "group_win_points"): (0, 100),
    ("stages", "advance"): (1, 1_000),
    ("clock", "round_minutes"): (1, 1_440),
    ("clock", "reminder_at_minutes"): (0, 1_440),
    ("awards", "counts"): (0, 100_000),
    ("awards", "small_field"): (0, 100_000),
    ("awards", "small_field_counts"): (0, 100_000),
}


def _check_range(value: Any, where: str, bounds: tuple[float, float]) -> None:
    low, high = bounds
    for item in value if isinstance(value, list) else [value]:
        if isinstance(item, int | float) and not isinstance(item, bool) \
                and not low <= item <= high:
            raise UsageError(f"规则设置 {where} = {value!r} 超出范围 out of range: "
                             f"应在 {low:g} 到 {high:g} 之间 expected {low:g} … {high:g}")


@dataclass(frozen=True)
class Ruleset:
    """A checked ruleset; sections are plain dicts with every default filled in."""

    name: str
    discipline: str
    format: str
    self_report: str
    description: str
    rounds: int
    team_size: int
    scoring: dict[str, Any]
    deals: dict[str, Any]
    ranking: dict[str, Any]
    pairing: dict[str, Any]
    tractor: dict[str, Any]
    stages: dict[str, Any]
    clock: dict[str, Any]
    awards: dict[str, Any]
    source: str

    @property
    def is_swiss(self) -> bool:
        """Rounds paired by ranking and one overall ranking (not a Tractor bracket)."""
        return self.format == "swiss" or (not self.format and self.discipline == "guandan")

    @property
    def points(self) -> dict[str, float]:
        """Match points of each outcome, the defaults of `absent` and `bye_points` filled in."""
        s = self.scoring
        bye = s["win"] if s["bye"] == "win" else s["draw"]
        return {"win": s["win"], "draw": s["draw"], "loss": s["loss"],
                "absent": s["loss"] if s["absent"] is None else s["absent"],
                "bye": bye if s["bye_points"] is None else s["bye_points"]}

    @property
    def fractional_points(self) -> bool:
        """True when some match points are fractions (totals are then printed as such)."""
        return any(float(v) != int(v) for v in self.points.values())

    @property
    def sql_params(self) -> dict[str, Any]:
        """Scoring settings as named SQL parameters."""
        s = self.scoring
        points = {k: float(v) for k, v in self.points.items()}
        h2h = self.ranking["head_to_head"]
        return {
            "win_points": points["win"],
            "draw_points": points["draw"],
            "loss_points": points["loss"],
            "absent_points": points["absent"],
            "bye_points": points["bye"],
            "h2h_applies": h2h["applies"],
            "h2h_counts": h2h["counts"],
            "h2h_reapply": h2h["reapply"],
            "unplayed": self.ranking["unplayed"],
            "planned_rounds": self.rounds,
            "ruled_as_forfeit": s["ruled_loss"] == "forfeit",
            "start_level": self.tractor["start_level"] if self.discipline == "tractor" else 2,
            "level_diff_base": s["level_diff_base"],
            "forfeit_level_diff": s["forfeit_level_diff"],
            "forfeit_penalty_target": s["forfeit_penalty_target"],
            "forfeit_penalty": s["forfeit_penalty"],
            "bye_is_win": s["bye"] == "win",
            "bye_level_diff": s["bye_level_diff"],
            "unplayed_win_levels": s["unplayed_win_levels"],
            "first_to_reach": s["equal_levels"] == "first_to_reach",
            "last_deal": s["equal_levels"] == "last_deal",
            "vp_table": [] if s["vp_table"] == [0] else s["vp_table"],
            "foul_limit": s["foul_limit"],
            "warnings_per_violation": s["warnings_per_violation"],
            "violation_limit": s["violation_limit"],
            "fouls_per_pair": s["fouls_per"] == "pair",
        }


def _merge(defaults: dict[str, Any], given: dict[str, Any], path: tuple[str, ...]) -> dict:
    merged = copy.deepcopy(defaults)
    for key, value in given.items():
        where = ".".join((*path, key))
        if key not in defaults:
            raise UsageError(f"规则文件有未知设置 unknown ruleset key: {where}")
        default = defaults[key]
        if isinstance(default, dict):
            if not isinstance(value, dict):
                raise UsageError(f"规则设置 {where} 应为一个表 (a table)")
            merged[key] = _merge(default, value, (*path, key))
            continue
        expected = type(default)
        if (*path, key) in FRACTIONS:
            expected = float
            ok = isinstance(value, int | float) and not isinstance(value, bool)
        else:
            ok = isinstance(value, expected) and not (expected is int and isinstance(value, bool))
        if not ok:
            raise UsageError(
                f"规则设置 {where} 类型错误 wrong type: {value!r}, 应为 expected {expected.__name__}"
            )
        if (*path, key) in RANGES:
            _check_range(value, where, RANGES[(*path, key)])
        choices = CHOICES.get((*path, key))
        if choices and value not in choices:
            raise UsageError(
                f"规则设置 {where} = {value!r} 不可用 not allowed; 可选 choose from {sorted(choices)}"
            )
        if key == "late" and path == ("clock",):
            _check_ladder(value, where)
        elif isinstance(value, list) and default:
            _check_items(value, where, type(default[0]))
        if key == "interim_keys" and value:
            unknown = [k for k in value if not isinstance(k, str) or k not in RANKING_KEYS]
            if unknown:
                raise UsageError(f"规则设置 {where} 有不存在的排名依据 unknown tiebreak: {unknown}")
        if key in {"keys", "pairing_keys"}:
            if not value:
                raise UsageError(f"规则设置 {where} 不能为空：至少要有一个排名依据 "
                                 f"needs at least one ranking key, e.g. {defaults[key]}")
            unknown = [k for k in value if k not in RANKING_KEYS]
            if unknown:
                raise UsageError(
                    f"规则设置 {where} 有不存在的排名依据 unknown tiebreak: {unknown}; "
                    f"可用 available: {sorted(RANKING_KEYS)}"
                )
        if isinstance(value, str) and any(c in value for c in "\r\n\0") and key != "description":
            raise UsageError(f"规则设置 {where} 不能含换行或控制字符 may not hold a line break")
        merged[key] = value
    return merged


def _check_items(items: list, where: str, expected: type) -> None:
    """Every item of a list setting of the type its default's items have (an integer list
    takes no fraction: `vp_table = [1.5]` would be rounded where it is used)."""
    for item in items:
        ok = isinstance(item, expected) and not isinstance(item, bool)
        if not ok:
            raise UsageError(f"规则设置 {where} 的每一项应为 {_TYPE_WORDS[expected]} each item "
                             f"must be {expected.__name__}: {item!r}")


_TYPE_WORDS = {int: "整数", str: "文字", float: "数", dict: "表"}

LATE_ACTIONS = {"warning", "penalty", "forfeit_game", "forfeit_round", "no_sanction"}
# what a late penalty may take from: a Swiss total, or a Tractor deal's captured points
LATE_TARGETS = {"match_points", "level_diff_score", "levels", "points"}


def _check_ladder(ladder: list, where: str) -> None:
    """Each rung: `up_to` minutes (inclusive) or `below` minutes (exclusive), finite and
    ≥ 0, an action, and for a penalty its target and a positive whole amount."""
    for rung in ladder:
        bounds = [rung[k] for k in ("up_to", "below") if k in rung] \
            if isinstance(rung, dict) else []
        if len(bounds) != 1 or not isinstance(bounds[0], int | float) \
                or isinstance(bounds[0], bool) or not 0 <= bounds[0] <= 100_000:
            raise UsageError(f"规则设置 {where} 每一级须有 0 到 100000 之间的 up_to（含）或 below"
                             f"（不含）分钟数，二者选一 each rung needs up_to (inclusive) or "
                             f"below (exclusive) minutes in 0 … 100000, one of them: {rung!r}")
        if rung.get("action") not in LATE_ACTIONS:
            raise UsageError(f"规则设置 {where} 的 action 应为 {sorted(LATE_ACTIONS)}: {rung!r}")
        if rung["action"] == "penalty":
            amount = rung.get("amount")
            if rung.get("target") not in LATE_TARGETS or not isinstance(amount, int) \
                    or isinstance(amount, bool) or amount <= 0:
                raise UsageError(f"规则设置 {where}: penalty 须有 target（{sorted(LATE_TARGETS)}"
                                 f"之一）与正整数 amount a penalty needs a known target and a "
                                 f"positive whole amount: {rung!r}")
        violations = rung.get("violations", 0)
        if not isinstance(violations, int) or isinstance(violations, bool) \
                or not 0 <= violations <= 10:
            raise UsageError(f"规则设置 {where}: violations 应为 0 到 10 的整数: {rung!r}")
        unknown = set(rung) - {"up_to", "below", "action", "target", "amount", "violations"}
        if unknown:
            raise UsageError(f"规则设置 {where} 有未知项 unknown keys {sorted(unknown)}: {rung!r}")


def parse_ruleset(text: str, source: str) -> Ruleset:
    """Check a ruleset's TOML text against the defaults and return it."""
    try:
        given = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"规则文件不是有效的 TOML invalid TOML in {source}: {exc}") from None
    except RecursionError:
        raise UsageError(f"规则文件嵌套太深 invalid TOML in {source}: nested too deeply") \
            from None
    try:
        merged = _merge(DEFAULTS, given, ())
    except UsageError as exc:  # the file named with the key: which ruleset says so
        raise UsageError(f"{source}: {exc}") from None
    if not merged["name"]:
        raise UsageError(f"规则文件缺少 name: {source}")
    _check_together(merged, source)
    return Ruleset(source=text, **merged)


def _check_together(merged: dict[str, Any], source: str) -> None:
    """Settings that are each allowed but not in one ruleset."""
    s = merged["scoring"]
    if not s["win"] >= s["draw"] >= s["loss"]:
        raise UsageError(f"{source}: 规则设置 scoring 须 win ≥ draw ≥ loss "
                         f"(win {s['win']}, draw {s['draw']}, loss {s['loss']})")
    if merged["discipline"] == "guandan" and merged["format"] == "knockout":
        raise UsageError(f"{source}: 掼蛋赛事按轮编排，淘汰赛只用于拖拉机 format = \"knockout\" "
                         "is the Tractor group and knockout stage; a Guandan event is paired "
                         "in Swiss rounds (format = \"swiss\" or leave it out)")


def preset_names() -> list[str]:
    folder = resources.files("pipeline") / "rulesets"
    return sorted(p.name.removesuffix(".toml") for p in folder.iterdir() if p.name.endswith(".toml"))


def load_preset(name: str) -> Ruleset:
    folder = resources.files("pipeline") / "rulesets"
    path = folder / f"{name}.toml"
    if not path.is_file():
        raise UsageError(f"没有这个规则预设 unknown ruleset preset: {name}; 可用 available: "
                         + ", ".join(preset_names()))
    return parse_ruleset(path.read_text(encoding="utf-8"), name)


def resolve(name_or_path: str) -> Ruleset:
    """A preset name, or the path of a custom ruleset TOML file."""
    if name_or_path.endswith(".toml") or "/" in name_or_path:
        path = Path(name_or_path)
        if not path.is_file():
            raise UsageError(f"找不到规则文件 ruleset file not found: {name_or_path}")
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise UsageError(f"规则文件应为 UTF-8 文本 the ruleset file is not UTF-8 text "
                             f"(save it as UTF-8): {name_or_path}") from None
        except OSError as exc:
            raise UsageError(f"读不了规则文件 cannot read the ruleset file {name_or_path}: "
                             f"{exc.strerror}") from None
        return parse_ruleset(text, str(path))
    return load_preset(name_or_path)
