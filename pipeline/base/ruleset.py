"""Rulesets are data: one TOML file per preset, merged over the defaults of every setting
(pipeline/base/settings.py) and checked against their allowed values and ranges.

Every setting the scoring, ranking and pairing code reads lives here, so a new preset adds
a file, not a code path.

>>> rs = load_preset("suzhou-2025")
>>> rs.scoring["win"], rs.ranking["keys"][:2]
(3, ['match_points', 'level_diff_score'])
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.base.errors import UsageError
from pipeline.base.settings import (
    CHOICES,
    DEFAULTS,
    FRACTIONS,
    LATE_ACTIONS,
    LATE_TARGETS,
    RANGES,
    RANKING_KEYS,
)


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
    officials: dict[str, Any]
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
            "unplayed_win_average": s["unplayed_win"] == "round_winners_average",
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
    import tomllib  # here: a command that parses no ruleset starts without it (2 ms)

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


PRESETS = Path(__file__).resolve().parent.parent / "rulesets"  # the package's presets


def preset_names() -> list[str]:
    folder = PRESETS
    return sorted(p.name.removesuffix(".toml") for p in folder.iterdir() if p.name.endswith(".toml"))


def load_preset(name: str) -> Ruleset:
    folder = PRESETS
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
