"""Names folded for comparing — of people and of units: NFKC, zero-width characters and
spaces removed, traditional → simplified, case folded; a surname that simplification would
turn into another surname stays as written (於明 is not 于明). Member ids upper-cased.
Pure: the registration, the pairing round (units kept apart) and the history all fold so.

>>> person_key(" 張 三 ") == person_key("张三"), person_key("ＬＩ Ｌｅｉ")
(True, 'lilei')
>>> person_key("王\\u200b伟") == person_key("王伟"), person_key("於明") == person_key("于明")
(True, False)
>>> normalize_name("恒通貿易") == normalize_name("恒通贸易"), member_key(" js-7 ")
(True, 'JS-7')
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from pipeline.base.chinese import simplified

ZERO_WIDTH = re.compile("[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")
# surnames that simplification would make into another surname: kept as written
DISTINCT_SURNAMES = frozenset("於乾")


@cache
def normalize_name(name: str | None) -> str:
    """Traditional → simplified, full-width → half-width, no spaces or zero-width
    characters, case folded (names of units too: 恒通貿易 = 恒通贸易)."""
    if not name:
        return ""
    text = ZERO_WIDTH.sub("", unicodedata.normalize("NFKC", name))
    text = simplified(text)
    return re.sub(r"\s+", "", text).casefold()


@cache
def person_key(name: str | None) -> str:
    """A person's folded name: as `normalize_name`, the surname kept where simplifying it
    would make another surname."""
    text = re.sub(r"\s+", "", ZERO_WIDTH.sub("", unicodedata.normalize("NFKC", name or "")))
    if text[:1] in DISTINCT_SURNAMES:
        return text[0] + normalize_name(text[1:])
    return normalize_name(text)


def member_key(member_id: str | None) -> str:
    return ZERO_WIDTH.sub("", unicodedata.normalize("NFKC", member_id or "")).strip().upper()


def as_typed(query: str) -> str:
    """A search as a phone's keyboard may type it, in the form it is stored: full-width
    letters and digits folded (ＡＢ６６４ → AB664: a Chinese keyboard's), spaces trimmed.

    >>> as_typed(" Ａ６６４ "), as_typed("雄鹰　队")
    ('A664', '雄鹰 队')
    """
    return unicodedata.normalize("NFKC", query).strip()


def team_number(query: str) -> str:
    """A search read as a team's number: as typed, upper-cased, without spaces inside.

    >>> team_number("a 664"), team_number("Ａ６６４")
    ('A664', 'A664')
    """
    return "".join(as_typed(query).upper().split())
