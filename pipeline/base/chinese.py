"""Traditional Chinese folded to simplified (OpenCC, offline), for matching what halls write
in either script: sheet headers, player names."""

from __future__ import annotations

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
