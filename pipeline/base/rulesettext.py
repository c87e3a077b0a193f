"""A ruleset written out whole, as `paisai rulesets show` prints it: every setting with its
value, in the order of `settings.DEFAULTS`, the preset's own comments kept above the keys it
set, and each setting it leaves at its default marked `# 默认 default` — still a TOML file an
organizer can copy and edit. Pure.

>>> from pipeline.base.ruleset import parse_ruleset
>>> text = complete(parse_ruleset('name = "x"\\n[scoring]\\n# 胜 3 分\\nwin = 3\\n', "x"))
>>> "# 胜 3 分\\nwin = 3\\n" in text, "draw = 1  # 默认 default" in text
(True, True)
>>> import tomllib; tomllib.loads(text)["scoring"]["loss"]
0
>>> "# vp_table = (未设 unset: 不计胜利分 no victory points)  # 默认 default" in text
True
"""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

from pipeline.base.settings import DEFAULTS

DEFAULT = "  # 默认 default"
UNSET = {"absent": "负的积分 the loss points",
         "bye_points": "胜的积分（bye = \"draw\" 时为平局分） the win points (the draw's with "
                       "bye = \"draw\")",
         "vp_table": "不计胜利分 no victory points"}
NOT_SET = {"vp_table": [0]}  # the value a setting holds when nothing is set: shown as unset


def title(description: str) -> str:
    """A preset's short title: its description up to the first colon.

    >>> title("恒全杯掼蛋（2025，种子 000 附件2）：积分赛 3 轮…")
    '恒全杯掼蛋（2025，种子 000 附件2）'
    """
    return re.split(r"[：:]", description, maxsplit=1)[0].strip()


def value(v: Any) -> str:
    """A TOML value (strings as JSON writes them, which TOML reads alike).

    >>> value([{"below": 15, "action": "no_sanction"}, 1.5, True])
    '[{ below = 15, action = "no_sanction" }, 1.5, true]'
    """
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + " }"
    if isinstance(v, list):
        return "[" + ", ".join(value(x) for x in v) + "]"
    return repr(v)


def _comments(source: str) -> dict[tuple[str, str], list[str]]:
    """The comment lines written just above each key of the preset's file."""
    found: dict[tuple[str, str], list[str]] = {}
    section, pending = "", []
    for line in source.splitlines():
        text = line.strip()
        header = re.match(r"^\[([\w.]+)\]$", text)
        if header:
            section, pending = header.group(1), []
        elif text.startswith("#"):
            pending.append(text)
        elif re.match(r"^[\w]+\s*=", text):
            found[(section, text.split("=")[0].strip())] = pending
            pending = []
        elif not text:
            pending = []
    return found


def complete(ruleset: Any) -> str:
    """Every setting of `ruleset` with its value; those the preset did not set marked."""
    given = tomllib.loads(ruleset.source)
    notes = _comments(ruleset.source)
    lines: list[str] = []

    def emit(section: str, defaults: dict, merged: dict, written: dict) -> None:
        tables = []
        for key, default in defaults.items():
            if isinstance(default, dict):
                tables.append(key)
                continue
            lines.extend(notes.get((section, key), []))
            mark = "" if key in written else DEFAULT
            if merged[key] is None or (key in NOT_SET and merged[key] == NOT_SET[key]):
                # no TOML null: the default is said in words (vp_table = [0] is no table)
                lines.append(f"# {key} = (未设 unset: {UNSET.get(key, '')}){mark}")
            else:
                lines.append(f"{key} = {value(merged[key])}{mark}")
        for key in tables:
            name = f"{section}.{key}" if section else key
            lines.extend(["", f"[{name}]"])
            emit(name, defaults[key], merged[key], written.get(key, {}))

    merged = {key: getattr(ruleset, key) for key in DEFAULTS}
    emit("", DEFAULTS, merged, given)
    return "\n".join(lines) + "\n"
