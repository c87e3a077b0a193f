"""Traditional Chinese folded to simplified (OpenCC, offline), for matching what halls write
in either script: sheet headers, player names; a text written in both languages said in one."""

from __future__ import annotations

import re
from functools import cache


@cache
def _converter():
    from opencc import OpenCC

    return OpenCC("t2s")


@cache
def simplified(text: str) -> str:
    """The simplified spelling of a text (anything not traditional is kept).

    >>> simplified("東西級數"), simplified("A1")
    ('东西级数', 'A1')
    """
    if text.isascii():
        return text
    return _converter().convert(text)


_CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


def one_language(text: str, lang: str) -> str:
    """A stored or pipeline text written in both languages ("中文 English") in the page's
    language only; a text not written so is left whole.

    >>> one_language("判负 round lost", "en"), one_language("判负 round lost", "zh")
    ('round lost', '判负')
    >>> one_language("赛事已存在 event already exists: e", "en")
    'event already exists: e'
    >>> one_language("only English", "zh"), one_language("只有中文", "en")
    ('only English', '只有中文')
    >>> one_language("本桌成绩已保存 A1 A – A2 9", "zh")
    '本桌成绩已保存 A1 A – A2 9'
    >>> one_language("上传「round-7.csv」 upload round-7.csv", "en")  # a name quoted: data
    'upload round-7.csv'

    """
    last = next(reversed(list(_CJK.finditer(text))), None)
    if last is None or not text[last.end():].strip():
        return text
    chinese, english = text[:last.end()].strip(), text[last.end():].strip()
    words = re.sub(r"「[^」]*」", "", chinese)  # a file's or a team's name quoted is data
    if re.search(r"[A-Za-z]{3,}", words) or not re.search(r"[A-Za-z]{3,}", english):
        return text  # the languages interleave, or what follows is data (A1 A – A2 9)
    return english if lang == "en" else chinese
