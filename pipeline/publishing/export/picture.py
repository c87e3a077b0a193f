"""A ranking as a phone-sized picture (PNG) for the event's WeChat group: the event, the
round, the top N or every team, drawn with the CJK font that certificates embed."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from pipeline.base.errors import UsageError
from pipeline.base.output import cell_text
from pipeline.publishing.export.certificates import Font, find_font

WIDTH = 1080  # a phone screen's width in pixels at 3x: sharp when zoomed
MARGIN = 48
ROW = 86
HEAD = 250
BACKGROUND = (245, 247, 251)
INK = (22, 28, 45)
MUTED = (105, 112, 128)
BAND = (31, 59, 99)
GOLD = (176, 132, 40)
# (column, header, share of the width, right-aligned)
COLUMNS = [("rank", "名次", 0.11, True), ("team", "队伍", 0.49, False),
           ("match_points", "积分", 0.13, True), ("level_diff_score", "级差分", 0.14, True),
           ("levels", "升级", 0.13, True)]


def write_picture(ranking: pl.DataFrame, event_name: str, subtitle: str, path: Path,
                  top: int | None = None, font: Font | None = None) -> int:
    """Draw the ranking (rank, team_no, team_name, match_points, level_diff_score, levels)
    and save it as PNG; returns the number of teams drawn."""
    from PIL import Image, ImageDraw, ImageFont

    if ranking.is_empty():
        raise UsageError("还没有排名，无图可画 no ranking yet: nothing to draw")
    shown = ranking.head(top) if top else ranking
    font = font or find_font()

    def face(size: int):
        return ImageFont.truetype(str(font.path), size, index=font.index)

    height = HEAD + ROW * (shown.height + 1) + 90
    image = Image.new("RGB", (WIDTH, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    _fit_text(draw, (MARGIN, 44), event_name, face, 60, WIDTH - 2 * MARGIN, INK)
    draw.text((MARGIN, 140), subtitle, font=face(38), fill=MUTED)
    top_y = HEAD
    draw.rectangle((0, top_y, WIDTH, top_y + ROW), fill=BAND)
    xs = _columns()
    for (_, title, _, right), (left, width) in zip(COLUMNS, xs, strict=True):
        _cell(draw, title, left, width, top_y, face(34), (255, 255, 255), right)
    for n, row in enumerate(shown.iter_rows(named=True)):
        y = top_y + ROW * (n + 1)
        if n % 2:
            draw.rectangle((0, y, WIDTH, y + ROW), fill=(255, 255, 255))
        colour = GOLD if row["rank"] is not None and row["rank"] <= 3 else INK
        values = {"rank": "" if row["rank"] is None else str(row["rank"]),
                  "team": f"{row['team_no']} {row['team_name'] or ''}".strip(),
                  "match_points": cell_text(row["match_points"]),
                  "level_diff_score": cell_text(row["level_diff_score"]),
                  "levels": cell_text(row["levels"])}
        for (key, _, _, right), (left, width) in zip(COLUMNS, xs, strict=True):
            size = 36 if key != "team" else _team_size(draw, values[key], face, width)
            if key == "team":
                values[key] = _shorten(draw, values[key], face(size), width - 24)
            _cell(draw, values[key], left, width, y, face(size), colour if key == "rank"
                  else INK, right)
    more = ranking.height - shown.height
    footer = f"另有 {more} 队未列出 · 牌赛 paisai" if more else "牌赛 paisai"
    draw.text((MARGIN, height - 70), footer, font=face(30), fill=MUTED)
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path, format="PNG", optimize=True)
    return shown.height


def _columns() -> list[tuple[int, int]]:
    usable = WIDTH - 2 * MARGIN
    out, left = [], MARGIN
    for _, _, share, _ in COLUMNS:
        width = int(usable * share)
        out.append((left, width))
        left += width
    return out


def _cell(draw, text: str, left: int, width: int, y: int, font, fill, right: bool) -> None:
    box = draw.textbbox((0, 0), text, font=font)
    x = left + width - (box[2] - box[0]) - 12 if right else left + 12
    draw.text((x, y + (ROW - (box[3] - box[1])) / 2 - box[1]), text, font=font, fill=fill)


def _team_size(draw, text: str, face, width: int) -> int:
    """The largest size (36 down to 20) at which a team's number and name fit its column."""
    for size in range(36, 19, -2):
        box = draw.textbbox((0, 0), text, font=face(size))
        if box[2] - box[0] <= width - 24:
            return size
    return 20


def _shorten(draw, text: str, font, width: int) -> str:
    """`text`, or its longest beginning followed by … that fits `width` (a bisection: a
    few measurements however long the text, never one per character)."""
    def fits(candidate: str) -> bool:
        return draw.textbbox((0, 0), candidate, font=font)[2] <= width

    if len(text) <= 1 or fits(text):
        return text
    short, long = 0, len(text) - 1  # text[:short] + "…" fits (or short is 0); text[:long] not
    while long - short > 1:
        middle = (short + long) // 2
        if fits(text[:middle] + "…"):
            short = middle
        else:
            long = middle
    return text[:max(short, 1)] + "…"


def _fit_text(draw, at: tuple[int, int], text: str, face, size: int, width: int, fill) -> None:
    while size > 28 and draw.textbbox((0, 0), text, font=face(size))[2] > width:
        size -= 4
    draw.text(at, _shorten(draw, text, face(size), width), font=face(size), fill=fill)
